import type { Trace } from '@streamscope/trace';
import {
  FlowKind,
  dstMemKind,
  memKindName,
  noRef,
  opKindName,
  srcMemKind,
  trackLabel,
} from '@streamscope/trace';

const flowNames: Record<number, string> = {
  [FlowKind.ApiToGpu]: 'api→gpu',
  [FlowKind.EventRecordToWait]: 'record→wait',
  [FlowKind.GraphToNode]: 'graph→node',
};

/**
 * A normalized text form of a trace, for snapshots and diffs: meta, devices, tracks, then up to
 * `maxOpsPerTrack` ops per track in start order, ranges, flows and counts. Stable across runs.
 */
export function dumpTrace(trace: Trace, maxOpsPerTrack = 12): string {
  const lines: string[] = [];
  const m = trace.meta;
  lines.push(`format ${m.sourceFormat} | producer ${m.producer} | title ${m.title}`);
  for (const d of trace.devices) {
    lines.push(
      `device ${d.deviceId} ${d.name} sm=${d.smCount ?? '?'} mem=${d.memoryBytes ?? '?'} cc=${d.computeCapability ?? '?'}`,
    );
  }
  for (const p of trace.processes) {
    lines.push(`process ${p.pid} ${p.name}`);
  }
  const ops = trace.ops.columns();
  trace.tracks.forEach((track, t) => {
    const where =
      track.kind === 'gpu-stream'
        ? `gpu pid=${track.pid} dev=${track.deviceId} ctx=${track.contextId} stream=${track.streamId} ${track.streamType} prio=${track.priority}`
        : `host pid=${track.pid} tid=${track.tid}`;
    const order = trace.ops.trackOrder(t);
    lines.push(`track ${t} "${trackLabel(track)}" ${where} ops=${order.length}`);
    for (let k = 0; k < Math.min(order.length, maxOpsPerTrack); k++) {
      const i = order[k]!;
      const parts = [
        `  ${ops.startNs[i]}+${ops.endNs[i]! - ops.startNs[i]!}`,
        opKindName(ops.kind[i]!),
        JSON.stringify(short(trace.name(ops.nameId[i]!))),
      ];
      if (ops.bytes[i]! > 0) {
        parts.push(`bytes=${ops.bytes[i]}`);
      }
      if (ops.memKinds[i]! !== 0) {
        parts.push(
          `mem=${memKindName(srcMemKind(ops.memKinds[i]!))}->${memKindName(dstMemKind(ops.memKinds[i]!))}`,
        );
      }
      if (ops.correlationId[i]! !== 0) {
        parts.push(`corr=${ops.correlationId[i]}`);
      }
      if (ops.refId[i]! !== noRef) {
        parts.push(`ref=${ops.refId[i]}`);
      }
      if (ops.flags[i]! !== 0) {
        parts.push(`flags=${ops.flags[i]}`);
      }
      lines.push(parts.join(' '));
    }
  });
  const ranges = trace.ranges.columns();
  lines.push(`ranges ${ranges.count}`);
  for (let i = 0; i < Math.min(ranges.count, maxOpsPerTrack * 2); i++) {
    const domain = ranges.domainId[i] === 0 ? '' : ` [${trace.name(ranges.domainId[i]!)}]`;
    lines.push(
      `  track ${ranges.track[i]} ${ranges.startNs[i]}+${ranges.endNs[i]! - ranges.startNs[i]!} depth=${ranges.depth[i]} kind=${ranges.kind[i]} ${JSON.stringify(short(trace.name(ranges.nameId[i]!)))}${domain}`,
    );
  }
  const flows = trace.flows.columns();
  const byKind = new Map<string, number>();
  for (let i = 0; i < flows.count; i++) {
    const name = flowNames[flows.kind[i]!] ?? 'other';
    byKind.set(name, (byKind.get(name) ?? 0) + 1);
  }
  lines.push(`flows ${[...byKind].map(([k, n]) => `${k}=${n}`).join(' ')}`);
  for (let i = 0; i < Math.min(flows.count, 6); i++) {
    lines.push(
      `  ${flowNames[flows.kind[i]!] ?? 'other'} op ${flows.fromOp[i]} -> op ${flows.toOp[i]}`,
    );
  }
  lines.push(`launch configs ${trace.launches.count}`);
  for (const w of m.warnings ?? []) {
    lines.push(`warning ${w}`);
  }
  return lines.join('\n') + '\n';
}

function short(name: string): string {
  return name.length > 60 ? `${name.slice(0, 57)}...` : name;
}
