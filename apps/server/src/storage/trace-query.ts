import type { RangeLaneSummary, Trace } from '@streamscope/trace';
import { opKindName, rangeLaneSummaries } from '@streamscope/trace';
import { ApiError } from '../http/api-error.ts';
import { nameTest } from '../workers/name-match.ts';

// Questions a tiled view asks about the whole of a big stored trace, answered from the trace's
// columns in a worker (tile-query-routes.ts): small JSON answers, never the ops themselves.

/** What a worker is asked about a stored trace. */
export type TraceQuery =
  | {
      readonly type: 'area';
      readonly fromNs: number;
      readonly toNs: number;
      /** Track indices; every track when empty. */
      readonly tracks: readonly number[];
    }
  | { readonly type: 'flows'; readonly track: number; readonly startNs: number }
  | {
      readonly type: 'search-marks';
      readonly q: string;
      readonly regex: boolean;
      readonly bucketCount: number;
    }
  | { readonly type: 'range-lanes' };

/** Per track with ranges, what its range lane row holds over the whole trace. */
export interface RangeLanesAnswer {
  readonly tracks: readonly RangeLaneSummary[];
}

/** Most (kind, name) groups an area answer lists, largest total time first. */
const maxAreaGroups = 200;

export interface AreaKindRow {
  readonly kind: string;
  readonly count: number;
  readonly sumNs: number;
}

export interface AreaTrackRow {
  readonly track: number;
  readonly count: number;
  /** Time in [fromNs, toNs] covered by at least one of the track's ops. */
  readonly busyNs: number;
  readonly kinds: readonly AreaKindRow[];
}

export interface AreaGroupRow {
  readonly kind: string;
  readonly name: string;
  readonly count: number;
  readonly sumNs: number;
  readonly avgNs: number;
  readonly minNs: number;
  readonly maxNs: number;
}

export interface AreaAnswer {
  readonly fromNs: number;
  readonly toNs: number;
  readonly count: number;
  readonly tracks: readonly AreaTrackRow[];
  /** Groups by (kind, name), largest total first, at most maxAreaGroups. */
  readonly groups: readonly AreaGroupRow[];
  readonly groupCount: number;
}

/**
 * Ops that overlap [fromNs, toNs] on `tracks`, as the normal view's area table counts them:
 * whole durations (not clipped), grouped by kind and name; per track, the count, the kinds and
 * the busy time inside the range (the union of the ops' intervals, clipped).
 */
function areaAnswer(
  trace: Trace,
  fromNs: number,
  toNs: number,
  tracks: readonly number[],
): AreaAnswer {
  const ops = trace.ops.columns();
  const beyond = tracks.find((t) => t >= trace.tracks.length);
  if (beyond !== undefined) {
    throw new ApiError(
      400,
      'bad-request',
      `tracks must be below the trace's ${trace.tracks.length} tracks, got ${beyond}`,
      'tracks',
    );
  }
  const chosen = tracks.length > 0 ? tracks : trace.tracks.map((_, i) => i);
  // Groups by (kind, name): a slot per key, their sums in parallel arrays (no object per op).
  const slotOf = new Map<number, number>();
  const gKey: number[] = [];
  const gN: number[] = [];
  const gSum: number[] = [];
  const gMin: number[] = [];
  const gMax: number[] = [];
  const kindN = new Float64Array(256);
  const kindSum = new Float64Array(256);
  const trackRows: AreaTrackRow[] = [];
  let total = 0;
  for (const track of chosen) {
    const inWindow = trace.ops.trackOpsInWindow(track, fromNs, toNs);
    kindN.fill(0);
    kindSum.fill(0);
    let busyNs = 0;
    // The ops come in start order: merge their clipped intervals into runs.
    let runStart = fromNs;
    let runEnd = fromNs;
    for (let k = 0; k < inWindow.length; k++) {
      const i = inWindow[k]!;
      const kind = ops.kind[i]!;
      const startNs = ops.startNs[i]!;
      const endNs = ops.endNs[i]!;
      const durNs = endNs - startNs;
      kindN[kind]!++;
      kindSum[kind]! += durNs;
      // kind < 256, so kind + 256 * nameId is a unique key below 2^41.
      const key = kind + 256 * ops.nameId[i]!;
      let slot = slotOf.get(key);
      if (slot === undefined) {
        slot = gKey.length;
        slotOf.set(key, slot);
        gKey.push(key);
        gN.push(0);
        gSum.push(0);
        gMin.push(durNs);
        gMax.push(durNs);
      }
      gN[slot]!++;
      gSum[slot]! += durNs;
      if (durNs < gMin[slot]!) {
        gMin[slot] = durNs;
      }
      if (durNs > gMax[slot]!) {
        gMax[slot] = durNs;
      }
      const s = Math.max(fromNs, startNs);
      const e = Math.min(toNs, endNs);
      if (s > runEnd) {
        busyNs += runEnd - runStart;
        runStart = s;
        runEnd = e;
      } else if (e > runEnd) {
        runEnd = e;
      }
    }
    busyNs += runEnd - runStart;
    total += inWindow.length;
    if (inWindow.length > 0) {
      const kinds: AreaKindRow[] = [];
      for (let kind = 0; kind < 256; kind++) {
        if (kindN[kind]! > 0) {
          kinds.push({ kind: opKindName(kind), count: kindN[kind]!, sumNs: kindSum[kind]! });
        }
      }
      kinds.sort((a, b) => b.sumNs - a.sumNs || b.count - a.count);
      trackRows.push({ track, count: inWindow.length, busyNs, kinds });
    }
  }
  const rows = gKey
    .map((key, slot) => ({
      kind: opKindName(key % 256),
      name: trace.strings.get(Math.floor(key / 256)),
      count: gN[slot]!,
      sumNs: gSum[slot]!,
      avgNs: gSum[slot]! / gN[slot]!,
      minNs: gMin[slot]!,
      maxNs: gMax[slot]!,
    }))
    .sort((a, b) => b.sumNs - a.sumNs || a.name.localeCompare(b.name));
  return {
    fromNs,
    toNs,
    count: total,
    tracks: trackRows,
    groups: rows.slice(0, maxAreaGroups),
    groupCount: rows.length,
  };
}

/** One op of a flows answer: enough to find it in a window, or to add it to one. */
export interface FlowOp {
  readonly track: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly kind: number;
  readonly kindName: string;
  /** Index into the trace's strings (a window of the trace keeps every string, in order). */
  readonly nameId: number;
  readonly name: string;
  readonly correlationId: number;
}

export interface FlowsAnswer {
  readonly op: FlowOp;
  /** Every flow that touches the op: FlowKind number, its source and its target. */
  readonly flows: readonly { readonly kind: number; readonly from: FlowOp; readonly to: FlowOp }[];
}

/** The flows of the op that starts at `startNs` on `track`; 404 when no op starts there. */
function flowsAnswer(trace: Trace, track: number, startNs: number): FlowsAnswer {
  if (track >= trace.tracks.length) {
    throw new ApiError(
      400,
      'bad-request',
      `track must be below the trace's ${trace.tracks.length} tracks, got ${track}`,
      'track',
    );
  }
  const ops = trace.ops.columns();
  const op = trace.ops
    .trackOpsInWindow(track, startNs, startNs)
    .find((i) => ops.startNs[i] === startNs);
  if (op === undefined) {
    throw new ApiError(404, 'not-found', `no op starts at ${startNs} ns on track ${track}`);
  }
  const describe = (i: number): FlowOp => ({
    track: ops.track[i]!,
    startNs: ops.startNs[i]!,
    endNs: ops.endNs[i]!,
    kind: ops.kind[i]!,
    kindName: opKindName(ops.kind[i]!),
    nameId: ops.nameId[i]!,
    name: trace.strings.get(ops.nameId[i]!),
    correlationId: ops.correlationId[i]!,
  });
  const flows = trace.flows.columns();
  return {
    op: describe(op),
    flows: trace.flows.touching(op).map((f) => ({
      kind: flows.kind[f]!,
      from: describe(flows.fromOp[f]!),
      to: describe(flows.toOp[f]!),
    })),
  };
}

export interface SearchMarksAnswer {
  /** Ops whose name matches, in the whole trace. */
  readonly count: number;
  /** Width of a bucket: the trace's span split into `bucketCount`. */
  readonly bucketNs: number;
  /** Per track with matches: the buckets holding match starts, ascending, and their counts. */
  readonly tracks: readonly {
    readonly track: number;
    readonly buckets: readonly number[];
    readonly counts: readonly number[];
  }[];
}

/** Where the matches of a name search are: per track, counts per bucket of the whole span. */
function searchMarksAnswer(
  trace: Trace,
  q: string,
  regex: boolean,
  bucketCount: number,
): SearchMarksAnswer {
  const test = nameTest({ q, regex });
  const names = trace.strings.slice(0);
  const matches = new Uint8Array(names.length);
  for (let id = 1; id < names.length; id++) {
    matches[id] = test(names[id]!) ? 1 : 0;
  }
  const ops = trace.ops.columns();
  const bucketNs = Math.max(1, trace.spanNs()) / bucketCount;
  let count = 0;
  const tracks: { track: number; buckets: number[]; counts: number[] }[] = [];
  for (let track = 0; track < trace.tracks.length; track++) {
    const order = trace.ops.trackOrder(track);
    const row = { track, buckets: [] as number[], counts: [] as number[] };
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      if (matches[ops.nameId[i]!] !== 1) {
        continue;
      }
      count++;
      // Start order, so buckets ascend: a new one or one more in the last.
      const b = Math.min(bucketCount - 1, Math.floor(ops.startNs[i]! / bucketNs));
      const last = row.buckets.length - 1;
      if (last >= 0 && row.buckets[last] === b) {
        row.counts[last]!++;
      } else {
        row.buckets.push(b);
        row.counts.push(1);
      }
    }
    if (row.buckets.length > 0) {
      tracks.push(row);
    }
  }
  return { count, bucketNs, tracks };
}

/** Answers `query` about `trace` (in a worker, or on the caller's thread where there are none). */
export function answerQuery(trace: Trace, query: TraceQuery): unknown {
  switch (query.type) {
    case 'area':
      return areaAnswer(trace, query.fromNs, query.toNs, query.tracks);
    case 'flows':
      return flowsAnswer(trace, query.track, query.startNs);
    case 'search-marks':
      return searchMarksAnswer(trace, query.q, query.regex, query.bucketCount);
    case 'range-lanes':
      return { tracks: rangeLaneSummaries(trace) } satisfies RangeLanesAnswer;
  }
}
