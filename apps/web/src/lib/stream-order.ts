import type { TrackInfo } from '@streamscope/trace';
import { displayOrder } from '@streamscope/trace';

/**
 * The one order of streams and threads: the timeline's rows (`displayOrder`), which the Streams
 * panel and the summary tables follow too. Returns each track's position in it.
 */
export function streamRanks(tracks: readonly TrackInfo[]): Int32Array {
  const ranks = new Int32Array(tracks.length);
  displayOrder(tracks).forEach((track, position) => {
    ranks[track] = position;
  });
  return ranks;
}

/** `items` sorted into the timeline's order of their tracks (unknown tracks last, stable). */
export function inStreamOrder<T extends { readonly track: number }>(
  tracks: readonly TrackInfo[],
  items: readonly T[],
): T[] {
  const ranks = streamRanks(tracks);
  const rankOf = (track: number): number => ranks[track] ?? Number.MAX_SAFE_INTEGER;
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => rankOf(a.item.track) - rankOf(b.item.track) || a.i - b.i)
    .map((x) => x.item);
}

/**
 * A stream's label naming its GPU once: "GPU 1 · Stream 7" where the trace has several GPUs and
 * the label does not already say which ("Stream 7 · GPU 1" stays as it is).
 */
export function streamLabelWithDevice(
  info: TrackInfo | undefined,
  label: string,
  deviceCount: number,
): string {
  if (info?.kind !== 'gpu-stream' || deviceCount < 2) {
    return label;
  }
  const device = `GPU ${info.deviceId}`;
  return new RegExp(`(^|· )${device}( ·|$)`).test(label) ? label : `${device} · ${label}`;
}
