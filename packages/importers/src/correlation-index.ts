import { IdHashMap } from './id-hash-map.ts';

/** Dense tables are used while the largest correlation id stays below this many entries per op. */
const denseSlackEntries = 1 << 20;

/**
 * (process, correlation id) → op index, for the ops of one kind that carry a correlation id.
 * Correlation ids are small and dense per process, so each process gets a typed table indexed by
 * id; sparse processes share one typed-array hash table keyed by (process, id).
 */
export class CorrelationIndex {
  private readonly dense: (Int32Array | undefined)[] = [];
  /** Key proc * 2^32 + corr: exact below 2^53 for up to 2^21 processes. */
  private readonly sparse = new IdHashMap();
  private readonly isSparse: boolean[] = [];

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
        this.isSparse[p] = true;
      }
    });
    for (let i = 0; i < count; i++) {
      if (kinds[i] === kind && corr[i] !== 0) {
        const p = procs[i]!;
        const table = this.dense[p];
        if (table === undefined) {
          this.sparse.set(p * 4294967296 + corr[i]!, i);
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
    return this.isSparse[proc] === true ? this.sparse.get(proc * 4294967296 + corr) : -1;
  }

  hasProcess(proc: number): boolean {
    return this.dense[proc] !== undefined || this.isSparse[proc] === true;
  }
}
