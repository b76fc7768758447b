import { closeSync, openSync, writeSync } from 'node:fs';

/** A value to store: NULL, an integer or real (number), text. */
export type StoredValue = number | string | null;

const pageSize = 65536;
const textEncoder = new TextEncoder();

/**
 * Writes a SQLite database file front to back, one table at a time, never holding it in memory:
 * rows fill leaf pages (type 13) that go to disk when full, then the interior pages (type 5) of
 * each table are written above its leaves; the schema's b-tree is rooted at page 1, written last.
 * 64 KiB pages, so that no generated row needs overflow pages (a longer row is refused).
 */
export class SqliteWriter {
  private readonly fd: number;
  private nextPage = 2; // page 1 is the schema's root, written by close()
  private readonly schema: { name: string; sql: string; rootPage: number }[] = [];
  private readonly leaf = new LeafBuilder();
  private leaves: { page: number; maxRowid: number }[] = [];

  constructor(filePath: string) {
    this.fd = openSync(filePath, 'w');
  }

  /** Writes one table: `rows` yields each row's rowid and values, rowids increasing. */
  table(name: string, sql: string, rows: Iterable<[number, StoredValue[]]>): void {
    this.leaves = [];
    for (const [rowid, values] of rows) {
      const cell = encodeCell(rowid, values);
      if (!this.leaf.fits(cell.length, 0)) {
        this.flushLeaf();
      }
      if (!this.leaf.fits(cell.length, 0)) {
        throw new Error(`a row of ${name} is ${cell.length} bytes: longer than a page holds`);
      }
      this.leaf.add(cell, rowid);
    }
    if (this.leaf.count > 0 || this.leaves.length === 0) {
      this.flushLeaf();
    }
    const root = this.buildInterior(this.leaves, false);
    this.schema.push({ name, sql, rootPage: root });
  }

  close(): void {
    // The schema table: type, name, tbl_name, rootpage, sql; its root is page 1.
    const rows = this.schema.map((t, i): [number, StoredValue[]] => [
      i + 1,
      ['table', t.name, t.name, t.rootPage, t.sql],
    ]);
    this.leaves = [];
    const leaf = new LeafBuilder();
    const pages: { cells: Uint8Array[]; rowids: number[] }[] = [];
    for (const [rowid, values] of rows) {
      const cell = encodeCell(rowid, values);
      if (!leaf.fits(cell.length, 100)) {
        pages.push(leaf.take());
      }
      leaf.add(cell, rowid);
    }
    pages.push(leaf.take());
    if (pages.length === 1) {
      this.writePage(1, buildLeafPage(pages[0]!, 100));
    } else {
      const leaves = pages.map((p) => {
        const page = this.nextPage++;
        this.writePage(page, buildLeafPage(p, 0));
        return { page, maxRowid: p.rowids.at(-1)! };
      });
      this.buildInterior(leaves, true);
    }
    this.writeHeader();
    closeSync(this.fd);
  }

  private flushLeaf(): void {
    const taken = this.leaf.take();
    const page = this.nextPage++;
    this.writePage(page, buildLeafPage(taken, 0));
    this.leaves.push({ page, maxRowid: taken.rowids.at(-1) ?? 0 });
  }

  /** Interior levels above `children` until one root; at page 1 when `rootAtPage1`. */
  private buildInterior(
    children: { page: number; maxRowid: number }[],
    rootAtPage1: boolean,
  ): number {
    // Children per interior page: 2-byte pointer + 4-byte child + varint key (≤ 9 bytes), with
    // room for page 1's file header.
    const perPage = Math.floor((pageSize - 12 - 100) / 15) + 1;
    let level = children;
    for (;;) {
      if (level.length === 1 && !rootAtPage1) {
        return level[0]!.page;
      }
      if (level.length <= perPage) {
        const page = rootAtPage1 ? 1 : this.nextPage++;
        this.writePage(page, buildInteriorPage(level, rootAtPage1 ? 100 : 0));
        return page;
      }
      const next: { page: number; maxRowid: number }[] = [];
      for (let at = 0; at < level.length; at += perPage) {
        const group = level.slice(at, at + perPage);
        const page = this.nextPage++;
        this.writePage(page, buildInteriorPage(group, 0));
        next.push({ page, maxRowid: group.at(-1)!.maxRowid });
      }
      level = next;
    }
  }

  private writePage(page: number, bytes: Uint8Array): void {
    writeSync(this.fd, bytes, 0, bytes.length, (page - 1) * pageSize);
  }

  private writeHeader(): void {
    const h = new Uint8Array(100);
    h.set(textEncoder.encode('SQLite format 3\u0000'), 0);
    h[16] = 0; // page size 65536 is written as 1
    h[17] = 1;
    h[18] = 1; // legacy (rollback journal) write and read versions
    h[19] = 1;
    h[21] = 64; // payload fractions, fixed by the format
    h[22] = 32;
    h[23] = 32;
    const view = new DataView(h.buffer);
    view.setUint32(24, 1); // change counter
    view.setUint32(28, this.nextPage - 1); // pages in the file
    view.setUint32(40, 1); // schema cookie
    view.setUint32(44, 4); // schema format 4
    view.setUint32(56, 1); // UTF-8
    view.setUint32(92, 1); // version-valid-for = change counter: the page count is valid
    view.setUint32(96, 3045000);
    const page1 = new Uint8Array(100);
    page1.set(h);
    writeSync(this.fd, page1, 0, 100, 0);
  }
}

class LeafBuilder {
  private cells: Uint8Array[] = [];
  private rowids: number[] = [];
  private bytes = 0;

  get count(): number {
    return this.cells.length;
  }

  fits(cellBytes: number, hdr: number): boolean {
    return hdr + 8 + (this.cells.length + 1) * 2 + this.bytes + cellBytes <= pageSize;
  }

  add(cell: Uint8Array, rowid: number): void {
    this.cells.push(cell);
    this.rowids.push(rowid);
    this.bytes += cell.length;
  }

  take(): { cells: Uint8Array[]; rowids: number[] } {
    const out = { cells: this.cells, rowids: this.rowids };
    this.cells = [];
    this.rowids = [];
    this.bytes = 0;
    return out;
  }
}

function buildLeafPage(leaf: { cells: Uint8Array[] }, hdr: number): Uint8Array {
  const page = new Uint8Array(pageSize);
  let content = pageSize;
  page[hdr] = 13;
  const n = leaf.cells.length;
  leaf.cells.forEach((cell, i) => {
    content -= cell.length;
    page.set(cell, content);
    page[hdr + 8 + 2 * i] = content >> 8;
    page[hdr + 9 + 2 * i] = content & 0xff;
  });
  page[hdr + 3] = n >> 8;
  page[hdr + 4] = n & 0xff;
  const start = content === pageSize ? 0 : content; // 0 stands for 65536
  page[hdr + 5] = start >> 8;
  page[hdr + 6] = start & 0xff;
  return page;
}

function buildInteriorPage(
  children: { page: number; maxRowid: number }[],
  hdr: number,
): Uint8Array {
  const page = new Uint8Array(pageSize);
  const view = new DataView(page.buffer);
  page[hdr] = 5;
  const cells = children.length - 1;
  let content = pageSize;
  for (let i = 0; i < cells; i++) {
    const key = varint(children[i]!.maxRowid);
    content -= 4 + key.length;
    view.setUint32(content, children[i]!.page);
    page.set(key, content + 4);
    view.setUint16(hdr + 12 + 2 * i, content);
  }
  view.setUint16(hdr + 3, cells);
  view.setUint16(hdr + 5, content === pageSize ? 0 : content);
  view.setUint32(hdr + 8, children.at(-1)!.page);
  return page;
}

function encodeCell(rowid: number, values: readonly StoredValue[]): Uint8Array {
  const types: number[] = [];
  const bodies: Uint8Array[] = [];
  for (const v of values) {
    const [t, body] = encodeValue(v);
    types.push(t);
    bodies.push(body);
  }
  const typeBytes = types.map(varint);
  let headerLen = typeBytes.reduce((s, b) => s + b.length, 0) + 1;
  if (headerLen > 127) {
    headerLen++; // the header size's own varint takes two bytes
  }
  const bodyLen = bodies.reduce((s, b) => s + b.length, 0);
  const payload = headerLen + bodyLen;
  const parts = [varint(payload), varint(rowid), varint(headerLen), ...typeBytes, ...bodies];
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const none = new Uint8Array(0);

function encodeValue(v: StoredValue): [number, Uint8Array] {
  if (v === null) {
    return [0, none];
  }
  if (typeof v === 'string') {
    const bytes = textEncoder.encode(v);
    return [bytes.length * 2 + 13, bytes];
  }
  if (Number.isSafeInteger(v)) {
    // The smallest of 1, 2, 3, 4, 6 or 8 big-endian bytes (serial types 1 to 6).
    const n =
      v >= -128 && v < 128
        ? 1
        : v >= -32768 && v < 32768
          ? 2
          : v >= -8388608 && v < 8388608
            ? 3
            : v >= -2147483648 && v < 2147483648
              ? 4
              : v >= -(2 ** 47) && v < 2 ** 47
                ? 6
                : 8;
    const b = new Uint8Array(n);
    const hi = Math.floor(v / 4294967296);
    const lo = v - hi * 4294967296; // 0 ≤ lo < 2^32
    for (let i = n - 1, k = 0; i >= 0; i--, k++) {
      b[i] = k < 4 ? (lo >>> (8 * k)) & 0xff : (hi >> (8 * (k - 4))) & 0xff;
    }
    return [n === 6 ? 5 : n === 8 ? 6 : n, b];
  }
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, v);
  return [7, b];
}

function varint(v: number): Uint8Array {
  if (v < 0 || !Number.isSafeInteger(v)) {
    throw new Error(`varint ${v} out of range`);
  }
  if (v < 128) {
    return Uint8Array.of(v);
  }
  // 7 bits a byte, most significant first (values below 2^53 need at most 8 bytes).
  const groups: number[] = [];
  for (let x = v; x > 0; x = Math.floor(x / 128)) {
    groups.unshift(x % 128);
  }
  return Uint8Array.from(groups.map((g, i) => (i < groups.length - 1 ? g | 0x80 : g)));
}
