import { opKindName } from '@streamscope/trace';
import type { AreaAnswer, SearchMarksAnswer } from './query-aggregates.ts';
import { AreaAccumulator, MarksAccumulator } from './query-aggregates.ts';
import type { OpFields, TileFile } from './tile-file.ts';
import { OpCol, opRowFields } from './tile-rows.ts';
import type { FlowOp, FlowsAnswer } from './trace-query.ts';
import { checkFlowTrack, chosenTracks, noOpStarts } from './trace-query.ts';

// A tiled view's questions about a whole big trace (trace-query.ts), answered from its tiles file
// at the cost of what each touches, with the same answers as the decoded trace gives:
//   area          the op blocks of each chosen track that reach the range (25 bytes an op);
//   flows         the op's row, its refs in the flow index, and one row per other end;
//   search marks  the matched names' postings (4 bytes a match) and the op blocks that hold them.
// Never the whole trace: memory is a few blocks and the answer.

const fields = opRowFields.length;
/** Posting entries read at once (4 bytes each). */
const postingsPerRead = 1 << 16;

/** Ops overlapping [fromNs, toNs] on `tracks` (all when empty), read from the rows that reach it. */
export async function areaFromTiles(
  file: TileFile,
  fromNs: number,
  toNs: number,
  tracks: readonly number[],
): Promise<AreaAnswer> {
  const chosen = chosenTracks(tracks, file.header.trackCount);
  const sums = new AreaAccumulator(fromNs, toNs);
  for (const track of chosen) {
    sums.beginTrack(track);
    await file.forEachBlockInWindow('ops', track, fromNs, toNs, (rows, count) => {
      for (let r = 0; r < count * fields; r += fields) {
        const startNs = rows[r + OpCol.startNs]!;
        const endNs = startNs + rows[r + OpCol.durNs]!;
        // As trackOpsInWindow keeps them: edges included.
        if (endNs >= fromNs && startNs <= toNs) {
          sums.add(rows[r + OpCol.kinds]! & 0xff, rows[r + OpCol.nameId]!, startNs, endNs);
        }
      }
    });
    sums.endTrack();
  }
  return sums.answer((id) => file.names[id] ?? '');
}

/** The flows of the op that starts at `startNs` on `track`, from the flow index. */
export async function flowsFromTiles(
  file: TileFile,
  track: number,
  startNs: number,
): Promise<FlowsAnswer> {
  checkFlowTrack(track, file.header.trackCount);
  // The first op of the track, in start order, that starts exactly there.
  let op = -1;
  await file.forEachBlockInWindow('ops', track, startNs, startNs, (rows, count) => {
    for (let r = 0; op < 0 && r < count * fields; r += fields) {
      if (rows[r + OpCol.startNs] === startNs) {
        op = rows[r + OpCol.index]!;
      }
    }
  });
  if (op < 0) {
    throw noOpStarts(track, startNs);
  }
  const described = new Map<number, FlowOp>();
  const describe = async (i: number): Promise<FlowOp> => {
    let found = described.get(i);
    if (found === undefined) {
      found = flowOpOf(await file.opFields(i), file.names);
      described.set(i, found);
    }
    return found;
  };
  const flows = [];
  for (const flow of await file.flowsOf(op)) {
    flows.push({
      kind: flow.kind,
      from: await describe(flow.fromOp),
      to: await describe(flow.toOp),
    });
  }
  return { op: await describe(op), flows };
}

function flowOpOf(f: OpFields, names: readonly string[]): FlowOp {
  return {
    track: f.track,
    startNs: f.startNs,
    endNs: f.endNs,
    kind: f.kind,
    kindName: opKindName(f.kind),
    nameId: f.nameId,
    name: names[f.nameId] ?? '',
    correlationId: f.correlationId,
  };
}

/**
 * Where the ops named by `nameIds` are (their names matched already), from those names'
 * postings alone: each match's row position (its track) and start (its bucket), 12 bytes a
 * match, in runs; no row is decoded. Memory: a run and one count per (track, bucket) with matches.
 */
export async function searchMarksFromTiles(
  file: TileFile,
  nameIds: readonly number[],
  bucketCount: number,
): Promise<SearchMarksAnswer> {
  const marks = new MarksAccumulator(file.storedSpanNs(), bucketCount);
  const seen = new Uint8Array(file.header.nameCount);
  // track × bucketCount + bucket → matches there.
  const counts = new Map<number, number>();
  for (const id of nameIds) {
    if (!(id > 0 && id < seen.length) || seen[id] === 1) {
      continue;
    }
    seen[id] = 1;
    const n = file.postingCount(id);
    for (let first = 0; first < n; first += postingsPerRead) {
      const take = Math.min(postingsPerRead, n - first);
      const positions = await file.postingsAt(id, first, take);
      const starts = await file.postingStartsAt(id, first, take);
      for (let k = 0; k < take; k++) {
        const key = file.trackOfPosition(positions[k]!) * bucketCount + marks.bucketOf(starts[k]!);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  }
  // Tracks ascending, each one's buckets ascending: the order the accumulator keeps.
  const keys = Float64Array.from(counts.keys()).sort();
  let track = -1;
  for (const key of keys) {
    const t = Math.floor(key / bucketCount);
    if (t !== track) {
      if (track >= 0) {
        marks.endTrack();
      }
      track = t;
      marks.beginTrack(t);
    }
    marks.addToBucket(key - t * bucketCount, counts.get(key)!);
  }
  if (track >= 0) {
    marks.endTrack();
  }
  return marks.answer();
}
