import type { TileSet } from '@streamscope/trace';
import { tileSetBytes } from '@streamscope/trace';

/**
 * Decoded tiles by key, least recently used first out once the bytes held pass `limitBytes`:
 * what bounds the page's memory for tiles whatever the trace's size.
 */
export class TileCache {
  private readonly sets = new Map<string, { readonly set: TileSet; readonly bytes: number }>();
  private held = 0;

  constructor(readonly limitBytes: number) {}

  get(key: string): TileSet | undefined {
    const entry = this.sets.get(key);
    if (entry === undefined) {
      return undefined;
    }
    // Most recently used goes last (a Map keeps insertion order).
    this.sets.delete(key);
    this.sets.set(key, entry);
    return entry.set;
  }

  has(key: string): boolean {
    return this.sets.has(key);
  }

  put(key: string, set: TileSet): void {
    const old = this.sets.get(key);
    if (old !== undefined) {
      this.held -= old.bytes;
      this.sets.delete(key);
    }
    const bytes = tileSetBytes(set);
    this.sets.set(key, { set, bytes });
    this.held += bytes;
    for (const [oldest, entry] of this.sets) {
      if (this.held <= this.limitBytes || oldest === key) {
        break;
      }
      this.sets.delete(oldest);
      this.held -= entry.bytes;
    }
  }

  /** Bytes of the tiles held now. */
  bytesHeld(): number {
    return this.held;
  }

  get size(): number {
    return this.sets.size;
  }
}
