import type { PageCache } from './page-cache.ts';
import { SqliteFormatError } from './sqlite-format-error.ts';

/** Decodes a record (`buf[start, end)`, a row of page `page` at file offset `pageBase + start`). */
export interface RecordSink {
  decode(
    buf: Uint8Array,
    start: number,
    end: number,
    rowid: number,
    page: number,
    pageBase: number,
  ): void;
}

/** Called after each row was decoded; return false to stop the scan. */
export type RowidVisitor = (rowid: number) => boolean | void;

const interiorTable = 5;
const leafTable = 13;
/** Deeper than any real table b-tree (a 4 KiB-page tree of depth 20 would hold more rows than disks do). */
const maxDepth = 40;

/**
 * One in-order walk of a table b-tree: interior pages (type 5) lead to their children left to
 * right, leaf pages (type 13) hold the rows in rowid order; payloads that spill are gathered from
 * their overflow pages. Each check names the page and the offset in the file.
 */
export class TableScan {
  private readonly maxLocal: number;
  private readonly minLocal: number;
  private overflowBuf = new Uint8Array(0);
  // Varint results: the value and where the next byte is.
  private v = 0;
  private at = 0;

  constructor(
    private readonly cache: PageCache,
    private readonly usable: number,
    private readonly decoder: RecordSink,
  ) {
    this.maxLocal = usable - 35;
    this.minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
  }

  run(rootPage: number, visit: RowidVisitor): void {
    const pageOf: number[] = [];
    const cellOf: number[] = [];
    const viewOf: Uint8Array[] = [];
    this.push(pageOf, cellOf, viewOf, rootPage, 0, 0);
    while (pageOf.length > 0) {
      const top = pageOf.length - 1;
      const pageNo = pageOf[top]!;
      const page = viewOf[top]!;
      const hdr = pageNo === 1 ? 100 : 0;
      const cells = (page[hdr + 3]! << 8) | page[hdr + 4]!;
      if (page[hdr] === leafTable) {
        pageOf.pop();
        cellOf.pop();
        viewOf.pop();
        if (!this.leaf(page, pageNo, hdr, cells, visit)) {
          return;
        }
        continue;
      }
      const cell = cellOf[top]!;
      cellOf[top] = cell + 1;
      let child: number;
      if (cell < cells) {
        const at = this.cellOffset(page, pageNo, hdr, 12, cell, cells);
        child = readU32(page, at);
      } else {
        pageOf.pop();
        cellOf.pop();
        viewOf.pop();
        child = readU32(page, hdr + 8); // the right-most pointer
      }
      if (pageOf.length >= maxDepth) {
        throw new SqliteFormatError(
          pageNo,
          this.base(pageNo),
          `the b-tree is deeper than ${maxDepth} levels (a loop?)`,
        );
      }
      this.push(pageOf, cellOf, viewOf, child, pageNo, this.base(pageNo) + hdr);
    }
  }

  private push(
    pageOf: number[],
    cellOf: number[],
    viewOf: Uint8Array[],
    pageNo: number,
    from: number,
    fromOffset: number,
  ): void {
    let page = this.cache.page(pageNo, from, fromOffset);
    const hdr = pageNo === 1 ? 100 : 0;
    const type = page[hdr]!;
    if (type !== leafTable && type !== interiorTable) {
      throw new SqliteFormatError(
        pageNo,
        this.base(pageNo) + hdr,
        `expected a table b-tree page (type 5 or 13), found type ${type}`,
      );
    }
    if (type === interiorTable) {
      // Held while its children are read, which may read other blocks into its block's memory.
      page = page.slice();
    }
    pageOf.push(pageNo);
    cellOf.push(0);
    viewOf.push(page);
  }

  private leaf(
    page: Uint8Array,
    pageNo: number,
    hdr: number,
    cells: number,
    visit: RowidVisitor,
  ): boolean {
    const decoder = this.decoder;
    const cache = this.cache;
    const base = this.base(pageNo);
    let generation = cache.generation;
    for (let cell = 0; cell < cells; cell++) {
      if (cache.generation !== generation) {
        // An overflow chain or the visitor read pages into this one's block: read it again.
        page = cache.page(pageNo, pageNo, base);
        generation = cache.generation;
      }
      const at = this.cellOffset(page, pageNo, hdr, 8, cell, cells);
      this.varint(page, at);
      const payload = this.v;
      this.varint(page, this.at);
      const rowid = this.v;
      const start = this.at;
      if (payload <= this.maxLocal) {
        if (start + payload > this.usable) {
          throw new SqliteFormatError(
            pageNo,
            base + at,
            `a ${payload}-byte row runs past the end of its page`,
          );
        }
        decoder.decode(page, start, start + payload, rowid, pageNo, base);
      } else {
        const whole = this.gather(page, pageNo, start, payload);
        decoder.decode(whole, 0, payload, rowid, pageNo, base + start);
      }
      if (visit(rowid) === false) {
        return false;
      }
    }
    return true;
  }

  /** A payload that spills: its local part, then each overflow page's content in turn. */
  private gather(page: Uint8Array, pageNo: number, start: number, payload: number): Uint8Array {
    const k = this.minLocal + ((payload - this.minLocal) % (this.usable - 4));
    const local = k <= this.maxLocal ? k : this.minLocal;
    if (start + local + 4 > this.usable) {
      throw new SqliteFormatError(
        pageNo,
        this.base(pageNo) + start,
        'a row with overflow runs past the end of its page',
      );
    }
    if (this.overflowBuf.length < payload) {
      this.overflowBuf = new Uint8Array(Math.max(payload, this.overflowBuf.length * 2));
    }
    const out = this.overflowBuf;
    out.set(page.subarray(start, start + local), 0);
    let have = local;
    let next = readU32(page, start + local);
    let from = pageNo;
    let fromOffset = this.base(pageNo) + start + local;
    while (have < payload) {
      if (next === 0) {
        throw new SqliteFormatError(
          from,
          fromOffset,
          `the overflow chain ends after ${have} of ${payload} bytes`,
        );
      }
      const overflow = this.cache.page(next, from, fromOffset);
      const take = Math.min(this.usable - 4, payload - have);
      out.set(overflow.subarray(4, 4 + take), have);
      have += take;
      from = next;
      fromOffset = this.base(next);
      next = readU32(overflow, 0);
    }
    return out;
  }

  private cellOffset(
    page: Uint8Array,
    pageNo: number,
    hdr: number,
    headerBytes: number,
    cell: number,
    cells: number,
  ): number {
    const ptr = hdr + headerBytes + 2 * cell;
    const at = (page[ptr]! << 8) | page[ptr + 1]!;
    if (at < hdr + headerBytes + 2 * cells || at >= this.usable) {
      throw new SqliteFormatError(
        pageNo,
        this.base(pageNo) + ptr,
        `cell ${cell} of ${cells} points to offset ${at}, outside the page's cell area`,
      );
    }
    return at;
  }

  private varint(b: Uint8Array, at: number): void {
    let v = 0;
    for (let i = 0; i < 8; i++) {
      const c = b[at++]!;
      v = v * 128 + (c & 0x7f);
      if (c < 0x80) {
        this.v = v;
        this.at = at;
        return;
      }
    }
    this.v = v * 256 + b[at++]!;
    this.at = at;
  }

  private base(pageNo: number): number {
    return (pageNo - 1) * this.cache.pageSize;
  }
}

function readU32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}
