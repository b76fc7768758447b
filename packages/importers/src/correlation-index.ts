/** Dense tables are used while the largest correlation id stays below this many entries per op. */
const denseSlackEntries = 1 << 20;

/**
 * (process, correlation id) → op index, for the ops of one kind that carry a correlation id.
 * Correlation ids are small and dense per process, so each process gets a typed table indexed by
 * id; a sparse process falls back to a Map.
 */
export class CorrelationIndex {
  private readonly dense: (Int32Array | undefined)[] = [];
  private readonly sparse: (Map<number, number> | undefined)[] = [];

  constructor(
    procs: Uint32Array,
    corr: Uint32Array,
    kinds: Uint8Array,
    kind: number,
    count: number,
  ) {
    const maxByProc: number[] = [];
    const countByProc: number[] = [];
    for (let i = 0; i < count; i++) {
      if (kinds[i] === kind && corr[i] !== 0) {
        const p = procs[i]!;
        maxByProc[p] = Math.max(maxByProc[p] ?? 0, corr[i]!);
        countByProc[p] = (countByProc[p] ?? 0) + 1;
      }
    }
    maxByProc.forEach((max, p) => {
      if (max < 4 * (countByProc[p] ?? 0) + denseSlackEntries) {
        this.dense[p] = new Int32Array(max + 1).fill(-1);
      } else {
        this.sparse[p] = new Map();
      }
    });
    for (let i = 0; i < count; i++) {
      if (kinds[i] === kind && corr[i] !== 0) {
        const p = procs[i]!;
        const table = this.dense[p];
        if (table === undefined) {
          this.sparse[p]!.set(corr[i]!, i);
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
    return this.sparse[proc]?.get(corr) ?? -1;
  }

  hasProcess(proc: number): boolean {
    return this.dense[proc] !== undefined || this.sparse[proc] !== undefined;
  }
}
