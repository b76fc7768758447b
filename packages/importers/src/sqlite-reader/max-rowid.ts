import type { PageCache } from './page-cache.ts';

const interiorTable = 5;
const leafTable = 13;
const maxDepth = 40;

/**
 * The largest rowid of a table b-tree, read down its right edge (one page per level): an upper
 * bound on its row count when rowids are positive, as SQLite assigns them (1, 2, … for nsys's
 * inserts). A hint only: a damaged tree gives undefined here and its precise error in the scan.
 */
export function maxRowid(cache: PageCache, rootPage: number): number | undefined {
  let pageNo = rootPage;
  for (let depth = 0; depth < maxDepth; depth++) {
    let page: Uint8Array;
    try {
      page = cache.page(pageNo, 0, 0);
    } catch {
      return undefined;
    }
    const hdr = pageNo === 1 ? 100 : 0;
    const type = page[hdr];
    const cells = (page[hdr + 3]! << 8) | page[hdr + 4]!;
    if (type === interiorTable) {
      pageNo = readU32(page, hdr + 8); // the right-most child holds the largest rowids
      continue;
    }
    if (type !== leafTable) {
      return undefined;
    }
    if (cells === 0) {
      return 0;
    }
    const ptr = hdr + 8 + 2 * (cells - 1);
    let at = (page[ptr]! << 8) | page[ptr + 1]!;
    if (at + 18 > page.length) {
      return undefined;
    }
    // Payload size, then the rowid: two varints.
    while (page[at]! >= 0x80) {
      at++;
    }
    at++;
    let rowid = 0;
    for (let i = 0; i < 9; i++) {
      const c = page[at++]!;
      if (i === 8) {
        rowid = rowid * 256 + c;
        break;
      }
      rowid = rowid * 128 + (c & 0x7f);
      if (c < 0x80) {
        break;
      }
    }
    return rowid;
  }
  return undefined;
}

function readU32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}
