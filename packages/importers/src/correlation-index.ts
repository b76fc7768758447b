import { upperBoundOf } from '@streamscope/trace';

/** A process gets a dense table while its largest id stays below this many slots per op plus slack. */
const denseSlotsPerOp = 1.5;
const denseSlack = 1 << 16;

/**
 * (process, correlation id) → op index, for the ops of one kind that carry a correlation id, in
 * typed arrays only. A process whose ids are dense gets a table indexed by id (O(1), at most
 * about 6 bytes an op); the others share one array of op indices sorted by id within each
 * process, 4 bytes an op, found by binary search: nsys exports skip most ids (API calls of
 * other kinds take them), and a table of every id would hold 4 bytes for each skipped one.
 * Where two ops share (process, id), the later op wins.
 */
export class CorrelationIndex {
  private readonly dense: (Int32Array | undefined)[] = [];
  /** Per sparse process: where its run of `sorted` starts and ends. */
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  private readonly sorted: Uint32Array;
  /** Where the last sparse lookup ended in `sorted`; hintProc is the process it was for. */
  private hint = 0;
  private hintProc = -1;

  constructor(
    procOf: (op: number) => number,
    private readonly corr: Uint32Array,
    kinds: Uint8Array,
    kind: number,
    count: number,
  ) {
    const { maxByProc, countByProc } = idsByProcess(procOf, corr, kinds, kind, count);
    let sparseOps = 0;
    maxByProc.forEach((max, p) => {
      const ops = countByProc[p] ?? 0;
      if (max < denseSlotsPerOp * ops + denseSlack) {
        this.dense[p] = new Int32Array(max + 1).fill(-1);
      } else {
        this.from[p] = sparseOps;
        this.to[p] = sparseOps;
        sparseOps += ops;
      }
    });
    this.sorted = new Uint32Array(sparseOps);
    this.place(procOf, kinds, kind, count);
    this.from.forEach((start, p) => this.sortRun(start, this.to[p]!));
  }

  /**
   * Puts each op in its process's dense table or sparse run. The two passes over the ops are
   * functions of their own so that V8 compiles each once, mid-loop, rather than this whole
   * constructor once per loop (each compile then deoptimized by the code after its loop).
   */
  private place(
    procOf: (op: number) => number,
    kinds: Uint8Array,
    kind: number,
    count: number,
  ): void {
    const corr = this.corr;
    for (let i = 0; i < count; i++) {
      if (kinds[i] === kind && corr[i] !== 0) {
        const p = procOf(i);
        const table = this.dense[p];
        if (table === undefined) {
          this.sorted[this.to[p]!++] = i;
        } else {
          table[corr[i]!] = i;
        }
      }
    }
  }

  /** The op for (proc, corr), or -1. */
  get(proc: number, corr: number): number {
    const table = this.dense[proc];
    if (table !== undefined) {
      return corr < table.length ? table[corr]! : -1;
    }
    const start = this.from[proc];
    if (start === undefined) {
      return -1;
    }
    // The last op whose id is ≤ corr, then whether it is corr. Lookups mostly come in rising id
    // order (GPU ops in issue order): the search gallops from where the last one of this process
    // ended, so it touches a few nearby slots instead of a cold path from the run's middle.
    const ids = this.corr;
    const sorted = this.sorted;
    const to = this.to[proc]!;
    let lo = start;
    let hi = to;
    const hint = this.hintProc === proc ? this.hint : start;
    if (hint === start || ids[sorted[hint - 1]!]! <= corr) {
      // Every slot before `hint` holds an id ≤ corr: find a slot past it with a larger id.
      lo = hint;
      let step = 1;
      hi = hint;
      while (hi < to && ids[sorted[hi]!]! <= corr) {
        lo = hi + 1;
        hi = Math.min(to, lo + step);
        step *= 2;
      }
    } else {
      hi = hint - 1;
    }
    lo = upperBoundOf(sorted, ids, corr, lo, hi);
    this.hintProc = proc;
    this.hint = lo;
    return lo > start && ids[sorted[lo - 1]!] === corr ? sorted[lo - 1]! : -1;
  }

  hasProcess(proc: number): boolean {
    return this.dense[proc] !== undefined || this.from[proc] !== undefined;
  }

  /** Sorts a run (op indices, ascending) by id, ties by op index; sources mostly give ids in order. */
  private sortRun(start: number, end: number): void {
    const ids = this.corr;
    const run = this.sorted.subarray(start, end);
    for (let k = 1; k < run.length; k++) {
      if (ids[run[k]!]! < ids[run[k - 1]!]!) {
        run.sort((a, b) => ids[a]! - ids[b]! || a - b);
        return;
      }
    }
  }
}

/** Per process, the largest id and how many ops of `kind` carry one. */
function idsByProcess(
  procOf: (op: number) => number,
  corr: Uint32Array,
  kinds: Uint8Array,
  kind: number,
  count: number,
): { maxByProc: number[]; countByProc: number[] } {
  const maxByProc: number[] = [];
  const countByProc: number[] = [];
  for (let i = 0; i < count; i++) {
    if (kinds[i] === kind && corr[i] !== 0) {
      const p = procOf(i);
      maxByProc[p] = Math.max(maxByProc[p] ?? 0, corr[i]!);
      countByProc[p] = (countByProc[p] ?? 0) + 1;
    }
  }
  return { maxByProc, countByProc };
}
