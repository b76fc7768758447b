import type { Trace } from '@streamscope/trace';
import { FlowKind, OpFlag, OpKind, isCopyKind } from '@streamscope/trace';
import type { CorrelationIndex } from './correlation-index.ts';

// The per-op passes of TraceBuilder.build, one function each. A pass runs once over every op, so
// V8 optimizes it mid-loop (on-stack replacement). With all of them in one method, each loop
// compiled the whole method again, and the code after it (never run yet) then deoptimized it:
// four compiles of one large method per import. Alone, each pass is compiled once, small.

/** Which lanes hold at least one of the `count` ops. */
export function usedLanes(lanes: Uint32Array, count: number, laneCount: number): Uint8Array {
  const used = new Uint8Array(laneCount);
  for (let i = 0; i < count; i++) {
    used[lanes[i]!] = 1;
  }
  return used;
}

/** The staging columns that `joinApiCalls` reads and finishes in place. */
export interface StagedColumns {
  readonly count: number;
  readonly kind: Uint8Array;
  readonly corr: Uint32Array;
  readonly lane: Uint32Array;
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  readonly flags: Uint8Array;
}

/**
 * Joins API calls to GPU ops (flows, orphan and sync flags), moves times to the origin in place
 * and gives each op its track. Returns the tracks and how many GPU ops were orphans.
 */
export function joinApiCalls(
  ops: StagedColumns,
  trace: Trace,
  apiByCorr: CorrelationIndex,
  procOf: (op: number) => number,
  isSyncApi: (apiOp: number) => boolean,
  trackOf: Uint32Array,
  originNs: number,
): { track: Uint16Array; orphans: number } {
  const { count: n, kind: kinds, corr, lane: lanes, startNs, endNs, flags } = ops;
  const track = new Uint16Array(n);
  let orphans = 0;
  for (let i = 0; i < n; i++) {
    const kind = kinds[i]!;
    const api = corr[i] !== 0 && kind !== OpKind.ApiCall ? apiByCorr.get(procOf(i), corr[i]!) : -1;
    if (api >= 0) {
      // Flows name ops by index: the op table need not hold them yet.
      trace.flows.append(api, i, FlowKind.ApiToGpu);
    }
    if (kind !== OpKind.ApiCall && kind !== OpKind.HostWork) {
      if (api < 0 && apiByCorr.hasProcess(procOf(i))) {
        flags[i] = flags[i]! | OpFlag.Orphan;
        orphans++;
      } else if (api >= 0 && (isCopyKind(kind) || kind === OpKind.Memset) && isSyncApi(api)) {
        flags[i] = flags[i]! | OpFlag.Sync;
      }
    }
    const s = startNs[i]!;
    startNs[i] = s - originNs;
    endNs[i] = Math.max(endNs[i]!, s) - originNs;
    track[i] = trackOf[lanes[i]!]!;
  }
  return { track, orphans };
}

/**
 * Name refs become trace string ids in place (ids are ≥ 0, so the same bytes read as Uint32):
 * no second name column at the peak. Runs of one ref are resolved once.
 */
export function resolveNameIds(
  nameRefs: Int32Array,
  count: number,
  resolveName: (ref: number) => number,
): Uint32Array {
  const nameId = new Uint32Array(nameRefs.buffer, nameRefs.byteOffset, nameRefs.length);
  let lastRef = 0;
  let lastId = 0;
  for (let i = 0; i < count; i++) {
    const ref = nameRefs[i]!;
    if (i === 0 || ref !== lastRef) {
      lastRef = ref;
      lastId = resolveName(ref);
    }
    nameId[i] = lastId;
  }
  return nameId;
}
