import { existsSync } from 'node:fs';
import type { OpInput, RangeKind } from '@streamscope/trace';
import { loadTrace, noRef, saveTrace } from '@streamscope/trace';
import { ApiError } from '../http/api-error.ts';
import { TileFile } from './tile-file.ts';
import { isOlderTileFileAt, tileFileExtension } from './tile-format.ts';
import { OpCol, RangeCol, opRowFields, rangeRowFields } from './tile-rows.ts';
import type { TraceWindow } from './trace-window.ts';

/** The tiles file beside a stored trace file (`ID.sstrace` → `ID.tiles`), when there is one of this version. */
export async function tilesBeside(tracePath: string): Promise<string | undefined> {
  const tilesPath = tracePath.replace(/\.sstrace$/, tileFileExtension);
  if (tilesPath === tracePath || !existsSync(tilesPath) || (await isOlderTileFileAt(tilesPath))) {
    return undefined;
  }
  return tilesPath;
}

/**
 * The window of a stored trace as codec bytes, read from its tiles file: the same answer as
 * `saveTrace(windowOf(trace, window))` on the decoded trace (every string, device, process,
 * track and launch config; the chosen tracks' ops overlapping [fromNs, toNs] in start order,
 * track by track; the ranges likewise, in trace order), at the cost of the window's rows: only
 * the blocks of each track that reach the window are read and decoded, never the whole trace.
 */
export async function windowFromTiles(tilesPath: string, window: TraceWindow): Promise<Uint8Array> {
  const file = await TileFile.open(tilesPath);
  try {
    const trackCount = file.header.trackCount;
    if (window.tracks?.some((t) => t >= trackCount) === true) {
      throw new ApiError(
        400,
        'bad-request',
        `tracks must be below the trace's ${trackCount} tracks`,
        'tracks',
      );
    }
    const { fromNs, toNs } = window;
    // The base holds no op and no range: decoding it costs the trace's structure only.
    const sub = loadTrace(await file.base());
    const tracks = window.tracks ?? Array.from({ length: trackCount }, (_, t) => t);
    const op: OpInput = { startNs: 0, endNs: 0, track: 0, kind: 0, nameId: 0 };
    const fo = opRowFields.length;
    for (const track of tracks) {
      op.track = track;
      await file.forEachBlockInWindow('ops', track, fromNs, toNs, (rows, count) => {
        for (let r = 0; r < count * fo; r += fo) {
          const startNs = rows[r + OpCol.startNs]!;
          const endNs = startNs + rows[r + OpCol.durNs]!;
          if (endNs < fromNs || startNs > toNs) {
            continue;
          }
          const refIdPlus1 = rows[r + OpCol.refIdPlus1]!;
          op.startNs = startNs;
          op.endNs = endNs;
          const kinds = rows[r + OpCol.kinds]!;
          op.kind = kinds & 0xff;
          op.flags = (kinds >> 8) & 0xff;
          op.memKinds = (kinds >> 16) & 0xff;
          op.nameId = rows[r + OpCol.nameId]!;
          op.bytes = rows[r + OpCol.bytes]!;
          op.correlationId = rows[r + OpCol.correlationId]!;
          op.refId = refIdPlus1 === 0 ? noRef : refIdPlus1 - 1;
          sub.ops.append(op);
        }
      });
    }
    // Ranges of the chosen tracks, put back in trace order (as windowOf lists them).
    const fr = rangeRowFields.length;
    const kept: number[] = [];
    for (const track of new Set(tracks)) {
      await file.forEachBlockInWindow('ranges', track, fromNs, toNs, (rows, count) => {
        for (let r = 0; r < count * fr; r += fr) {
          const startNs = rows[r + RangeCol.startNs]!;
          const endNs = startNs + rows[r + RangeCol.durNs]!;
          if (endNs >= fromNs && startNs <= toNs) {
            kept.push(track);
            for (let k = 0; k < fr; k++) {
              kept.push(rows[r + k]!);
            }
          }
        }
      });
    }
    const stride = fr + 1;
    const order = Array.from({ length: kept.length / stride }, (_, k) => k);
    order.sort(
      (a, b) => kept[a * stride + 1 + RangeCol.index]! - kept[b * stride + 1 + RangeCol.index]!,
    );
    for (const k of order) {
      const o = k * stride;
      const startNs = kept[o + 1 + RangeCol.startNs]!;
      sub.ranges.append({
        startNs,
        endNs: startNs + kept[o + 1 + RangeCol.durNs]!,
        track: kept[o]!,
        nameId: kept[o + 1 + RangeCol.nameId]!,
        domainId: kept[o + 1 + RangeCol.domainId]!,
        depth: kept[o + 1 + RangeCol.depth]!,
        kind: kept[o + 1 + RangeCol.kind]! as RangeKind,
      });
    }
    return saveTrace(sub);
  } finally {
    file.close();
  }
}
