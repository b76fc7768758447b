import type { RangeLaneSummary, Trace } from '@streamscope/trace';
import { opKindName, rangeLaneSummaries } from '@streamscope/trace';
import { ApiError } from '../http/api-error.ts';
import { nameTest } from '../workers/name-match.ts';
import type { AreaAnswer, SearchMarksAnswer } from './query-aggregates.ts';
import { AreaAccumulator, MarksAccumulator } from './query-aggregates.ts';

// Questions a tiled view asks about the whole of a big stored trace (tile-query-routes.ts), with
// small JSON answers, never the ops themselves. A worker answers them from the trace's tiles file
// where it has one (tile-queries.ts, at the cost of what each touches); here, from the decoded
// trace's columns: a trace without a tiles file of this version, or a build without workers.

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
      /**
       * The ids of the names that match, when the route has already matched them against the
       * trace's tiles file (in a worker, under the search time limit); the tiles file then answers.
       */
      readonly nameIds?: readonly number[];
    }
  | { readonly type: 'range-lanes' };

/** Per track with ranges, what its range lane row holds over the whole trace. */
export interface RangeLanesAnswer {
  readonly tracks: readonly RangeLaneSummary[];
}

/**
 * Ops that overlap [fromNs, toNs] on `tracks` (every track when empty), as AreaAccumulator
 * counts them.
 */
function areaAnswer(
  trace: Trace,
  fromNs: number,
  toNs: number,
  tracks: readonly number[],
): AreaAnswer {
  const ops = trace.ops.columns();
  const chosen = chosenTracks(tracks, trace.tracks.length);
  const sums = new AreaAccumulator(fromNs, toNs);
  for (const track of chosen) {
    const inWindow = trace.ops.trackOpsInWindow(track, fromNs, toNs);
    sums.beginTrack(track);
    for (let k = 0; k < inWindow.length; k++) {
      const i = inWindow[k]!;
      sums.add(ops.kind[i]!, ops.nameId[i]!, ops.startNs[i]!, ops.endNs[i]!);
    }
    sums.endTrack();
  }
  return sums.answer((id) => trace.strings.get(id));
}

/** An area's tracks: those asked for, each below `trackCount` (400 naming tracks), or all. */
export function chosenTracks(tracks: readonly number[], trackCount: number): readonly number[] {
  const beyond = tracks.find((t) => t >= trackCount);
  if (beyond !== undefined) {
    throw new ApiError(
      400,
      'bad-request',
      `tracks must be below the trace's ${trackCount} tracks, got ${beyond}`,
      'tracks',
    );
  }
  return tracks.length > 0 ? tracks : Array.from({ length: trackCount }, (_, i) => i);
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

/** 400 naming `track` when the trace has no such track. */
export function checkFlowTrack(track: number, trackCount: number): void {
  if (track >= trackCount) {
    throw new ApiError(
      400,
      'bad-request',
      `track must be below the trace's ${trackCount} tracks, got ${track}`,
      'track',
    );
  }
}

/** 404: no op starts at `startNs` on `track`. */
export function noOpStarts(track: number, startNs: number): ApiError {
  return new ApiError(404, 'not-found', `no op starts at ${startNs} ns on track ${track}`);
}

/** The flows of the op that starts at `startNs` on `track`; 404 when no op starts there. */
function flowsAnswer(trace: Trace, track: number, startNs: number): FlowsAnswer {
  checkFlowTrack(track, trace.tracks.length);
  const ops = trace.ops.columns();
  const op = trace.ops
    .trackOpsInWindow(track, startNs, startNs)
    .find((i) => ops.startNs[i] === startNs);
  if (op === undefined) {
    throw noOpStarts(track, startNs);
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
  const marks = new MarksAccumulator(trace.spanNs(), bucketCount);
  for (let track = 0; track < trace.tracks.length; track++) {
    const order = trace.ops.trackOrder(track);
    marks.beginTrack(track);
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      if (matches[ops.nameId[i]!] === 1) {
        marks.add(ops.startNs[i]!);
      }
    }
    marks.endTrack();
  }
  return marks.answer();
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
