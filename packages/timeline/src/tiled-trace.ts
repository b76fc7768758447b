import type { Trace, TileSet } from '@streamscope/trace';
import { TileCache } from './tile-cache.ts';
import type { RangeLanes } from './range-lanes.ts';
import type { TileSource } from './tile-source.ts';
import { appendTileBuckets } from './tile-source.ts';

/** The shape of a stored trace's level-of-detail pyramid (GET /api/traces/:id/tiles/meta). */
export interface TileMeta {
  readonly opCount: number;
  readonly spanNs: number;
  readonly trackCount: number;
  readonly levelCount: number;
  readonly fanout: number;
  readonly level0BucketNs: number;
}

/** How a TiledTrace reaches the server (the app's client; tests and the bench pass their own). */
export interface TileFetcher {
  tiles(t0Ns: number, t1Ns: number, px: number, signal: AbortSignal): Promise<TileSet>;
  window(fromNs: number, toNs: number, signal: AbortSignal): Promise<Trace>;
}

export interface TiledTraceOptions {
  /** Bytes of decoded tiles kept (least recently used out first). */
  readonly cacheBytes?: number;
  /** The exact ops of a window are fetched when it holds at most this many. */
  readonly exactOpLimit?: number;
  /** Called when tiles arrive (redraw) or a window's exact ops arrive (swap the view's trace). */
  readonly onTiles?: () => void;
  readonly onWindow?: (trace: Trace) => void;
  readonly onError?: (message: string) => void;
}

/** Buckets per tile: a tile of level l covers tileBuckets × bucketNs(l) ns. */
export const tileBuckets = 1024;
const defaultCacheBytes = 64 * 1024 * 1024;
const defaultExactOpLimit = 200_000;

/**
 * The view's source for a stored trace too big to hold (TileSource): level-of-detail tiles of
 * fixed size per level fetched for the padded window (3×, as the renderer pads its bounds) and
 * kept in a byte-bounded LRU, plus the exact ops of a window once it holds few enough of them.
 * Frames draw only from what is cached: the level that fits the zoom when all its tiles are
 * here, else the finest coarser level that has them all; arrivals bump `version` and redraw.
 */
export class TiledTrace implements TileSource {
  version = 0;
  rangeLanes: RangeLanes | undefined = undefined;
  private readonly cache: TileCache;
  private readonly inflight = new Map<string, AbortController>();
  private exact: { startNs: number; endNs: number } | undefined;
  private exactWanted: { startNs: number; endNs: number; controller: AbortController } | undefined;
  private readonly exactOpLimit: number;
  private disposed = false;
  /** The level a rebuild draws from, decided once per (range, resolution). */
  private drawLevel = { fromNs: NaN, toNs: NaN, nsPerPx: NaN, version: -1, level: -1 };

  constructor(
    readonly meta: TileMeta,
    private readonly fetcher: TileFetcher,
    private readonly options: TiledTraceOptions = {},
  ) {
    this.cache = new TileCache(options.cacheBytes ?? defaultCacheBytes);
    this.exactOpLimit = options.exactOpLimit ?? defaultExactOpLimit;
  }

  bucketNsOf(level: number): number {
    return this.meta.level0BucketNs * this.meta.fanout ** level;
  }

  /** The coarsest level whose buckets are at most `nsPerPx` wide (the finest when none is). */
  levelFor(nsPerPx: number): number {
    let level = 0;
    while (level + 1 < this.meta.levelCount && this.bucketNsOf(level + 1) <= nsPerPx) {
      level++;
    }
    return level;
  }

  get spanNs(): number {
    return this.meta.spanNs;
  }

  exactRange(): { readonly startNs: number; readonly endNs: number } | undefined {
    return this.exact;
  }

  /** The whole trace's range lanes (asked of the server apart): rows relabel at the next frame. */
  setRangeLanes(lanes: RangeLanes): void {
    if (this.disposed) {
      return;
    }
    this.rangeLanes = lanes;
    this.version++;
    this.options.onTiles?.();
  }

  /** Requests in flight (tiles, and a window of exact ops). */
  pending(): number {
    return this.inflight.size + (this.exactWanted === undefined ? 0 : 1);
  }

  /** Bytes this source holds: cached tiles (the window trace is the registry's). */
  bytesHeld(): number {
    return this.cache.bytesHeld();
  }

  want(fromNs: number, toNs: number, nsPerPx: number): void {
    if (this.disposed) {
      return;
    }
    const spanNs = Math.max(1, toNs - fromNs);
    const padFromNs = Math.max(0, fromNs - spanNs);
    const padToNs = Math.min(this.meta.spanNs + 1, toNs + spanNs);
    const level = this.levelFor(nsPerPx);
    this.forEachTile(level, padFromNs, padToNs, (key, t0Ns, t1Ns) => {
      if (!this.cache.has(key) && !this.inflight.has(key)) {
        this.fetchTile(key, t0Ns, t1Ns);
      }
    });
    // Ops exist only in [0, spanNs]: a window reaching past the ends needs no more than that.
    const clampedFromNs = Math.max(0, fromNs);
    const clampedToNs = Math.min(this.meta.spanNs, toNs);
    if (
      this.covers(this.exact, clampedFromNs, clampedToNs) ||
      this.covers(this.exactWanted, clampedFromNs, clampedToNs)
    ) {
      return;
    }
    const estimate = this.opsIn(level, padFromNs, padToNs);
    if (estimate !== undefined && estimate <= this.exactOpLimit) {
      this.fetchWindow(padFromNs, padToNs);
    }
  }

  appendTrack(
    out: Parameters<TileSource['appendTrack']>[0],
    row: number,
    track: number,
    fromNs: number,
    toNs: number,
    baseNs: number,
    nsPerPx: number,
  ): number {
    const level = this.levelToDraw(fromNs, toNs, nsPerPx);
    let ops = 0;
    this.forEachTile(level, fromNs, toNs, (key) => {
      const set = this.cache.get(key);
      if (set !== undefined) {
        ops += appendTileBuckets(out, row, set, track, fromNs, toNs, baseNs);
      }
    });
    return ops;
  }

  dispose(): void {
    this.disposed = true;
    for (const controller of this.inflight.values()) {
      controller.abort();
    }
    this.inflight.clear();
    this.exactWanted?.controller.abort();
  }

  /** The wanted level when all its tiles over the range are cached, else the finest coarser one that has them. */
  private levelToDraw(fromNs: number, toNs: number, nsPerPx: number): number {
    const d = this.drawLevel;
    if (
      d.fromNs === fromNs &&
      d.toNs === toNs &&
      d.nsPerPx === nsPerPx &&
      d.version === this.version
    ) {
      return d.level;
    }
    const wanted = this.levelFor(nsPerPx);
    let level = wanted;
    while (level < this.meta.levelCount && !this.allCached(level, fromNs, toNs)) {
      level++;
    }
    this.drawLevel = {
      fromNs,
      toNs,
      nsPerPx,
      version: this.version,
      level: level < this.meta.levelCount ? level : wanted,
    };
    return this.drawLevel.level;
  }

  private allCached(level: number, fromNs: number, toNs: number): boolean {
    let all = true;
    this.forEachTile(level, fromNs, toNs, (key) => {
      all &&= this.cache.has(key);
    });
    return all;
  }

  /** Ops that start in [fromNs, toNs] by the cached tiles of `level`, or undefined when some are missing. */
  private opsIn(level: number, fromNs: number, toNs: number): number | undefined {
    let ops = 0;
    let missing = false;
    this.forEachTile(level, fromNs, toNs, (key) => {
      const set = this.cache.get(key);
      if (set === undefined) {
        missing = true;
        return;
      }
      for (let k = 0; k < set.buckets.length; k++) {
        const startNs = set.buckets[k]! * set.bucketNs;
        if (startNs >= fromNs - set.bucketNs && startNs <= toNs) {
          ops += set.opCounts[k]!;
        }
      }
    });
    return missing ? undefined : ops;
  }

  private forEachTile(
    level: number,
    fromNs: number,
    toNs: number,
    visit: (key: string, t0Ns: number, t1Ns: number) => void,
  ): void {
    const tileNs = this.bucketNsOf(level) * tileBuckets;
    const first = Math.max(0, Math.floor(fromNs / tileNs));
    const last = Math.max(first, Math.floor(Math.min(toNs, this.meta.spanNs) / tileNs));
    for (let k = first; k <= last; k++) {
      visit(`${level}:${k}`, k * tileNs, (k + 1) * tileNs);
    }
  }

  private covers(
    range: { startNs: number; endNs: number } | undefined,
    fromNs: number,
    toNs: number,
  ): boolean {
    return range !== undefined && range.startNs <= fromNs && toNs <= range.endNs;
  }

  private fetchTile(key: string, t0Ns: number, t1Ns: number): void {
    const controller = new AbortController();
    this.inflight.set(key, controller);
    this.fetcher
      .tiles(t0Ns, t1Ns, tileBuckets, controller.signal)
      .then(
        (set) => {
          if (!this.disposed) {
            this.cache.put(key, set);
            this.version++;
            this.options.onTiles?.();
          }
        },
        (error: unknown) => {
          if (!controller.signal.aborted) {
            this.options.onError?.(`tiles ${key} failed: ${messageOf(error)}`);
          }
        },
      )
      .finally(() => this.inflight.delete(key));
  }

  private fetchWindow(startNs: number, endNs: number): void {
    this.exactWanted?.controller.abort();
    const controller = new AbortController();
    const wanted = { startNs, endNs, controller };
    this.exactWanted = wanted;
    this.fetcher.window(startNs, endNs, controller.signal).then(
      (trace) => {
        if (this.disposed || this.exactWanted !== wanted) {
          return;
        }
        this.exactWanted = undefined;
        // Infinite on a side that reaches the trace's end: no op lies beyond it.
        this.exact = {
          startNs: startNs <= 0 ? -Infinity : startNs,
          endNs: endNs >= this.meta.spanNs ? Infinity : endNs,
        };
        this.version++;
        this.options.onWindow?.(trace);
      },
      (error: unknown) => {
        if (this.exactWanted === wanted) {
          this.exactWanted = undefined;
        }
        if (!controller.signal.aborted) {
          this.options.onError?.(`the ops of ${startNs}–${endNs} ns failed: ${messageOf(error)}`);
        }
      },
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
