import type { Trace } from '@streamscope/trace';
import {
  FlowKind,
  OpFlag,
  OpKind,
  bandwidthGBps,
  dstMemKind,
  formatBytes,
  isCopyKind,
  memKindName,
  noRef,
  opKindName,
  srcMemKind,
  trackLabels,
} from '@streamscope/trace';

export interface FlowLink {
  readonly direction: 'from' | 'to';
  readonly kind: string;
  /** The op at the other end. */
  readonly op: number;
  readonly name: string;
  readonly track: string;
}

/** What the tooltip and the details panel show for one op. */
export interface OpDetails {
  readonly op: number;
  readonly name: string;
  readonly kind: string;
  readonly track: string;
  /** What the track is: "Stream" for a GPU stream, "Thread" for a host thread. */
  readonly trackHeading: 'Stream' | 'Thread';
  readonly startNs: number;
  readonly durNs: number;
  readonly bytes: number;
  /** GB/s (10^9 bytes per second); 0 where no bytes moved or the size is unknown. */
  readonly bandwidthGBps: number;
  /**
   * What the panels print for size and bandwidth: "4 KiB" and "40.96 GB/s", "unknown" for both
   * where the source recorded no size (not 0 GB/s), or null where no bytes apply.
   */
  readonly bytesLabel: string | null;
  readonly bandwidthLabel: string | null;
  /** False where the source recorded no size for this copy or memset. */
  readonly sizeKnown: boolean;
  readonly memory: string | null;
  readonly grid: string | null;
  readonly block: string | null;
  readonly correlationId: number;
  readonly flows: readonly FlowLink[];
}

const flowKindNames: Record<number, string> = {
  [FlowKind.EventRecordToWait]: 'event record → wait',
  [FlowKind.ApiToGpu]: 'API call → GPU op',
  [FlowKind.GraphToNode]: 'graph launch → node',
};

function trackName(trace: Trace, track: number): string {
  return trackLabels(trace.tracks)[track] ?? `track ${track}`;
}

/** Details of op `op`, or null when the index is out of range (a stale link, say). */
export function opDetails(trace: Trace, op: number, withFlows = true): OpDetails | null {
  const ops = trace.ops.columns();
  if (!Number.isInteger(op) || op < 0 || op >= ops.count) {
    return null;
  }
  const kind = ops.kind[op]!;
  const startNs = ops.startNs[op]!;
  const durNs = ops.endNs[op]! - startNs;
  const bytes = ops.bytes[op]!;
  let grid: string | null = null;
  let block: string | null = null;
  const refId = ops.refId[op]!;
  if (kind === OpKind.Kernel && refId !== noRef) {
    const launch = trace.launches.get(refId);
    if (launch !== undefined) {
      grid = `${launch.gridX}×${launch.gridY}×${launch.gridZ}`;
      block = `${launch.blockX}×${launch.blockY}×${launch.blockZ}`;
    }
  }
  const memKinds = ops.memKinds[op]!;
  const memory =
    isCopyKind(kind) && memKinds !== 0
      ? `${memKindName(srcMemKind(memKinds))} → ${memKindName(dstMemKind(memKinds))}`
      : null;
  const flows: FlowLink[] = [];
  if (withFlows) {
    const columns = trace.flows.columns();
    for (const f of trace.flows.touching(op)) {
      const from = columns.fromOp[f]!;
      const to = columns.toOp[f]!;
      const other = from === op ? to : from;
      if (other >= ops.count) {
        continue;
      }
      flows.push({
        direction: from === op ? 'to' : 'from',
        kind: flowKindNames[columns.kind[f]!] ?? 'flow',
        op: other,
        name: trace.strings.get(ops.nameId[other]!),
        track: trackName(trace, ops.track[other]!),
      });
    }
  }
  return {
    op,
    name: trace.strings.get(ops.nameId[op]!),
    kind: opKindName(kind),
    track: trackName(trace, ops.track[op]!),
    trackHeading: trace.tracks[ops.track[op]!]?.kind === 'host-thread' ? 'Thread' : 'Stream',
    startNs,
    durNs,
    bytes,
    bandwidthGBps: bytes > 0 ? bandwidthGBps(bytes, durNs) : 0,
    ...sizeLabels(bytes, durNs, ops.flags[op]!),
    memory,
    grid,
    block,
    correlationId: ops.correlationId[op]!,
    flows,
  };
}

function sizeLabels(
  bytes: number,
  durNs: number,
  flags: number,
): { bytesLabel: string | null; bandwidthLabel: string | null; sizeKnown: boolean } {
  if ((flags & OpFlag.BytesUnknown) !== 0) {
    return { bytesLabel: 'unknown', bandwidthLabel: 'unknown', sizeKnown: false };
  }
  if (bytes <= 0) {
    return { bytesLabel: null, bandwidthLabel: null, sizeKnown: true };
  }
  return {
    bytesLabel: formatBytes(bytes),
    bandwidthLabel: `${bandwidthGBps(bytes, durNs).toFixed(2)} GB/s`,
    sizeKnown: true,
  };
}
