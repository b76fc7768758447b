import type { RecordBatches } from '@streamscope/trace';
import { FlowKind } from '@streamscope/trace';

/** A track's place in the Chrome trace. */
export interface Place {
  readonly pid: number;
  readonly tid: number;
}

// Flows resolved at a time. An arrow needs its two ops' tracks and times; rather than keep
// those for every op, each window of flows looks up just the ops it names in one pass over the
// op batches that hold them. Memory: about 56 bytes a flow of the window (7 MB), whatever the
// trace's size; the price is one pass over the ops it spans per window (a few for most traces,
// whose flows join nearby ops; 8 full passes for 1M flows that each span the whole trace).
const defaultFlowWindow = 1 << 17;

/**
 * The flow arrows (a start and a finish event each), in flow order, as `chromeBatchChunks`
 * writes them. `flowWindow` is for tests (several windows on a small trace).
 */
export function* flowEvents(
  source: RecordBatches,
  where: readonly Place[],
  flowWindow = defaultFlowWindow,
): Generator<string, void, undefined> {
  const window = new FlowWindow(
    source,
    where,
    Math.max(1, Math.min(flowWindow, source.counts.flows)),
  );
  for (const { firstIndex, flows } of source.flowBatches()) {
    for (let i = 0; i < flows.count; i++) {
      if (window.add(firstIndex + i, flows.fromOp[i]!, flows.toOp[i]!, flows.kind[i]!)) {
        yield* window.events();
      }
    }
  }
  yield* window.events();
}

/** Up to `capacity` flows, then their events; the buffers are reused window after window. */
class FlowWindow {
  private count = 0;
  private firstFlow = 0;
  private readonly fromOp: Uint32Array;
  private readonly toOp: Uint32Array;
  private readonly kind: Uint8Array;
  // The ops the window's flows name, sorted and unique, and their track and times.
  private readonly needed: Uint32Array;
  private readonly track: Uint16Array;
  private readonly startNs: Float64Array;
  private readonly endNs: Float64Array;

  constructor(
    private readonly source: RecordBatches,
    private readonly where: readonly Place[],
    private readonly capacity: number,
  ) {
    this.fromOp = new Uint32Array(capacity);
    this.toOp = new Uint32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.needed = new Uint32Array(2 * capacity);
    this.track = new Uint16Array(2 * capacity);
    this.startNs = new Float64Array(2 * capacity);
    this.endNs = new Float64Array(2 * capacity);
  }

  /** Adds flow `index`; true when the window is full. */
  add(index: number, fromOp: number, toOp: number, kind: number): boolean {
    if (this.count === 0) {
      this.firstFlow = index;
    }
    this.fromOp[this.count] = fromOp;
    this.toOp[this.count] = toOp;
    this.kind[this.count] = kind;
    this.count++;
    return this.count === this.capacity;
  }

  /** The window's events; the window is empty after. */
  *events(): Generator<string, void, undefined> {
    const opCount = this.source.counts.ops;
    const m = this.lookUpOps(opCount);
    const { where, needed } = this;
    for (let k = 0; k < this.count; k++) {
      const from = this.fromOp[k]!;
      const to = this.toOp[k]!;
      if (from >= opCount || to >= opCount) {
        continue;
      }
      const a = slot(needed, m, from);
      const b = slot(needed, m, to);
      const kind = this.kind[k]!;
      const id = this.firstFlow + k + 1;
      const name =
        kind === FlowKind.ApiToGpu
          ? 'launch'
          : kind === FlowKind.EventRecordToWait
            ? 'event'
            : 'graph';
      const placeA = where[this.track[a]!]!;
      const placeB = where[this.track[b]!]!;
      // The arrow leaves the API call at its start (a record at its end) and binds to the op's start.
      const fromNs = kind === FlowKind.EventRecordToWait ? this.endNs[a]! : this.startNs[a]!;
      yield `{"ph":"s","cat":"${name}","name":"${name}","id":${id},"pid":${placeA.pid},"tid":${placeA.tid},"ts":${us(fromNs)}}`;
      yield `{"ph":"f","bp":"e","cat":"${name}","name":"${name}","id":${id},"pid":${placeB.pid},"tid":${placeB.tid},"ts":${us(this.startNs[b]!)}}`;
    }
    this.count = 0;
  }

  /** Fills `needed` (sorted, unique) and the ops' columns for them; how many there are. */
  private lookUpOps(opCount: number): number {
    let n = 0;
    for (let k = 0; k < this.count; k++) {
      if (this.fromOp[k]! < opCount && this.toOp[k]! < opCount) {
        this.needed[n++] = this.fromOp[k]!;
        this.needed[n++] = this.toOp[k]!;
      }
    }
    if (n === 0) {
      return 0;
    }
    const sorted = this.needed.subarray(0, n).sort();
    let m = 1;
    for (let i = 1; i < n; i++) {
      if (sorted[i] !== sorted[m - 1]) {
        sorted[m++] = sorted[i]!;
      }
    }
    let p = 0;
    const range = { fromOp: sorted[0]!, toOp: sorted[m - 1]! + 1 };
    for (const { firstIndex, ops } of this.source.opBatches(range)) {
      const end = firstIndex + ops.count;
      for (; p < m && sorted[p]! < end; p++) {
        const j = sorted[p]! - firstIndex;
        this.track[p] = ops.track[j]!;
        this.startNs[p] = ops.startNs[j]!;
        this.endNs[p] = ops.endNs[j]!;
      }
    }
    return m;
  }
}

/** Index of `op` in the first `m` of `sorted` (it is there). */
function slot(sorted: Uint32Array, m: number, op: number): number {
  let lo = 0;
  let hi = m;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < op) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** ns → µs with ns precision kept as three decimals. */
export function us(ns: number): string {
  return (ns / 1000).toFixed(3);
}
