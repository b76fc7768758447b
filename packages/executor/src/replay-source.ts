import type {
  DeviceInfo,
  FlowColumns,
  LaunchConfig,
  OpColumns,
  ProcessInfo,
  RangeColumns,
  TraceMeta,
  TrackInfo,
} from '@streamscope/trace';
import { Trace } from '@streamscope/trace';

/**
 * A stored trace made ready to replay: its columns as they are (typed arrays, transferable
 * between threads without a copy) and the order in which its ops, flows and ranges appear. A
 * server prepares one in a worker thread, so neither the decode nor the sorts run on its event
 * loop; the replay backend only walks it.
 */
export interface ReplaySource {
  readonly meta: TraceMeta;
  /** The interned names from id 1 on (id 0 is the empty name). */
  readonly strings: readonly string[];
  readonly devices: readonly DeviceInfo[];
  readonly processes: readonly ProcessInfo[];
  readonly tracks: readonly TrackInfo[];
  readonly launches: readonly LaunchConfig[];
  readonly ops: OpColumns;
  readonly flows: FlowColumns;
  readonly ranges: RangeColumns;
  /** Op indices by end time (then index): the order in which ops appear. */
  readonly opOrder: Uint32Array;
  /** Flow indices by the later end of the two ops they link. */
  readonly flowOrder: Uint32Array;
  /** Range indices by end time. */
  readonly rangeOrder: Uint32Array;
  /** The earliest op start, where realtime pace starts its clock (0 without ops). */
  readonly firstStartNs: number;
}

/** A trace's columns and replay order (O(n log n): run it off a server's event loop). */
export function replaySourceOf(trace: Trace): ReplaySource {
  const ops = trace.ops.columns();
  const flows = trace.flows.columns();
  const ranges = trace.ranges.columns();
  const opOrder = sortedIndices(ops.count, (a, b) => ops.endNs[a]! - ops.endNs[b]! || a - b);
  const flowReadyNs = (f: number): number =>
    Math.max(ops.endNs[flows.fromOp[f]!] ?? 0, ops.endNs[flows.toOp[f]!] ?? 0);
  const flowOrder = sortedIndices(flows.count, (a, b) => flowReadyNs(a) - flowReadyNs(b) || a - b);
  const rangeOrder = sortedIndices(
    ranges.count,
    (a, b) => ranges.endNs[a]! - ranges.endNs[b]! || a - b,
  );
  let firstStartNs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ops.count; i++) {
    firstStartNs = Math.min(firstStartNs, ops.startNs[i]!);
  }
  return {
    meta: trace.meta,
    strings: trace.strings.slice(1),
    devices: trace.devices,
    processes: trace.processes,
    tracks: trace.tracks,
    launches: trace.launches.slice(0),
    ops,
    flows,
    ranges,
    opOrder,
    flowOrder,
    rangeOrder,
    firstStartNs: Number.isFinite(firstStartNs) ? firstStartNs : 0,
  };
}

/** The ArrayBuffers a source's columns and orders live in: what to transfer, and its bytes. */
export function replaySourceBuffers(source: ReplaySource): ArrayBuffer[] {
  const { ops, flows, ranges } = source;
  const arrays: ArrayBufferView[] = [
    ops.startNs,
    ops.endNs,
    ops.bytes,
    ops.track,
    ops.nameId,
    ops.correlationId,
    ops.refId,
    ops.kind,
    ops.memKinds,
    ops.flags,
    flows.fromOp,
    flows.toOp,
    flows.kind,
    ranges.startNs,
    ranges.endNs,
    ranges.track,
    ranges.nameId,
    ranges.domainId,
    ranges.depth,
    ranges.kind,
    source.opOrder,
    source.flowOrder,
    source.rangeOrder,
  ];
  return [...new Set(arrays.map((array) => array.buffer as ArrayBuffer))];
}

/** The memory a source holds in its typed arrays, in bytes (what a cache of sources counts). */
export function replaySourceBytes(source: ReplaySource): number {
  return replaySourceBuffers(source).reduce((sum, buffer) => sum + buffer.byteLength, 0);
}

function sortedIndices(count: number, compare: (a: number, b: number) => number): Uint32Array {
  const indices = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    indices[i] = i;
  }
  // A typed array sorts with the comparator in place: no array of boxed numbers beside it.
  return indices.sort(compare);
}

/** A new trace with the source's meta, names and structure, and no ops yet. */
export function skeletonOf(source: ReplaySource): Trace {
  const trace = new Trace(source.meta);
  for (const value of source.strings) {
    trace.strings.intern(value);
  }
  source.devices.forEach((d) => trace.addDevice(d));
  source.processes.forEach((p) => trace.addProcess(p));
  source.tracks.forEach((t) => trace.addTrack(t));
  for (const config of source.launches) {
    trace.launches.intern(config);
  }
  return trace;
}
