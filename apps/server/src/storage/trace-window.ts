import type { OpInput, RangeKind } from '@streamscope/trace';
import { Trace } from '@streamscope/trace';

export interface TraceWindow {
  readonly fromNs: number;
  readonly toNs: number;
  /** Track indices to include; all tracks when absent. */
  readonly tracks?: readonly number[];
}

/**
 * A sub-trace for a big trace's visible window: every string, device, process, track and launch
 * config (so indices mean the same as in the whole trace), the chosen tracks' ops that overlap
 * [fromNs, toNs], and ranges likewise. Flows are left out: they name op indices of the whole trace.
 */
export function windowOf(trace: Trace, window: TraceWindow): Trace {
  const sub = new Trace(trace.meta);
  for (const value of trace.strings.slice(1)) {
    sub.strings.intern(value);
  }
  trace.devices.forEach((d) => sub.addDevice(d));
  trace.processes.forEach((p) => sub.addProcess(p));
  trace.tracks.forEach((t) => sub.addTrack(t));
  for (const config of trace.launches.slice(0, trace.launches.count)) {
    sub.launches.intern(config);
  }
  const tracks = window.tracks ?? trace.tracks.map((_, i) => i);
  const ops = trace.ops.columns();
  const op: OpInput = { startNs: 0, endNs: 0, track: 0, kind: 0, nameId: 0 };
  for (const track of tracks) {
    for (const i of trace.ops.trackOpsInWindow(track, window.fromNs, window.toNs)) {
      op.startNs = ops.startNs[i]!;
      op.endNs = ops.endNs[i]!;
      op.track = ops.track[i]!;
      op.kind = ops.kind[i]!;
      op.nameId = ops.nameId[i]!;
      op.bytes = ops.bytes[i]!;
      op.memKinds = ops.memKinds[i]!;
      op.correlationId = ops.correlationId[i]!;
      op.refId = ops.refId[i]!;
      op.flags = ops.flags[i]!;
      sub.ops.append(op);
    }
  }
  const chosen = new Set(tracks);
  const ranges = trace.ranges.columns();
  for (let i = 0; i < ranges.count; i++) {
    const startNs = ranges.startNs[i]!;
    const endNs = ranges.endNs[i]!;
    if (chosen.has(ranges.track[i]!) && endNs >= window.fromNs && startNs <= window.toNs) {
      sub.ranges.append({
        startNs,
        endNs,
        track: ranges.track[i]!,
        nameId: ranges.nameId[i]!,
        domainId: ranges.domainId[i]!,
        depth: ranges.depth[i]!,
        kind: ranges.kind[i]! as RangeKind,
      });
    }
  }
  return sub;
}
