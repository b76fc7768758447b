import type { RandomAccessFile } from './random-access.ts';
import { SqliteFormatError } from './sqlite-format-error.ts';

/**
 * Default bound of the cache: what an import holds of the database at once. Scans go in page
 * order and hold views of the interior pages they descend through, so a few blocks serve them.
 */
export const defaultCacheBytes = 8 << 20;
/**
 * Pages are read from disk in blocks of about this size (nsys writes tables mostly in order):
 * few large sequential reads (1,333 for a 349 MB export).
 */
const blockBytes = 1 << 18;

/**
 * Pages of a SQLite file read on demand in blocks of consecutive pages, kept in an LRU cache
 * bounded in bytes. A page is a view into its block: valid until the next `page()` call may
 * evict it, so callers copy what they keep. An evicted block's memory is read into again (a
 * 194 MB import would otherwise leave 776 dead 256 KiB blocks for the garbage collector, and
 * its peak memory would depend on when it ran); `generation` counts those reuses, so a caller
 * that holds a view across `page()` calls can tell it is stale.
 */
export class PageCache {
  readonly pageCount: number;
  private readonly pagesPerBlock: number;
  private readonly maxBlocks: number;
  private readonly blocks = new Map<number, Uint8Array>();
  private lastBlock = -1;
  private last: Uint8Array | undefined;
  /** Bytes read from the file so far (progress). */
  bytesRead = 0;
  /** How many times an evicted block's memory was read into again. */
  generation = 0;

  constructor(
    private readonly file: RandomAccessFile,
    readonly pageSize: number,
    cacheBytes = defaultCacheBytes,
  ) {
    this.pageCount = Math.floor(file.sizeBytes / pageSize);
    // At least 4 blocks fit the bound (a small cache reads smaller blocks).
    this.pagesPerBlock = Math.max(1, Math.floor(Math.min(blockBytes, cacheBytes / 4) / pageSize));
    this.maxBlocks = Math.max(4, Math.floor(cacheBytes / (this.pagesPerBlock * pageSize)));
  }

  /** Page `n` (1-based) as a view of `pageSize` bytes. */
  page(n: number, from: number, fromOffset: number): Uint8Array {
    if (!Number.isInteger(n) || n < 1 || n > this.pageCount) {
      throw new SqliteFormatError(
        from,
        fromOffset,
        `points to page ${n}, but the file has ${this.pageCount} pages (truncated or damaged)`,
      );
    }
    const index = Math.floor((n - 1) / this.pagesPerBlock);
    let block: Uint8Array | undefined;
    if (index === this.lastBlock) {
      block = this.last!;
    } else {
      block = this.blocks.get(index);
      if (block === undefined) {
        block = this.readBlock(index);
      } else {
        this.blocks.delete(index); // re-inserted last: most recently used
      }
      this.blocks.set(index, block);
      this.lastBlock = index;
      this.last = block;
    }
    const at = ((n - 1) % this.pagesPerBlock) * this.pageSize;
    return block.subarray(at, at + this.pageSize);
  }

  /** Drops every cached block (a finished import): the cache holds nothing afterwards. */
  clear(): void {
    this.blocks.clear();
    this.lastBlock = -1;
    this.last = undefined;
  }

  private readBlock(index: number): Uint8Array {
    const firstPage = index * this.pagesPerBlock;
    const pages = Math.min(this.pagesPerBlock, this.pageCount - firstPage);
    let block: Uint8Array | undefined;
    if (this.blocks.size >= this.maxBlocks) {
      const oldest = this.blocks.keys().next().value!;
      const evicted = this.blocks.get(oldest)!;
      this.blocks.delete(oldest);
      if (evicted.length === pages * this.pageSize) {
        block = evicted;
        this.generation++;
      }
    }
    block ??= new Uint8Array(pages * this.pageSize);
    const position = firstPage * this.pageSize;
    let have = 0;
    while (have < block.length) {
      const n = this.file.readAt(block.subarray(have), position + have);
      if (n <= 0) {
        throw new SqliteFormatError(firstPage + 1, position + have, 'the file ended early');
      }
      have += n;
    }
    this.bytesRead += have;
    return block;
  }
}
