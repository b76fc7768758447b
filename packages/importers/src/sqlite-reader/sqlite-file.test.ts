import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../nsys/load-sqljs.ts';
import { SqlJsSource } from '../nsys/sqljs-source.ts';
import type { ScanColumn, SqlValue } from '../nsys/sqlite-source.ts';
import { FileSqliteSource } from './file-source.ts';
import { bytesAsRandomAccess } from './random-access.ts';
import { parseCreateTable } from './create-table.ts';

/** A database written by sql.js (real SQLite), as file bytes. */
async function database(pageSize: number, statements: string[]): Promise<Uint8Array> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run(`PRAGMA page_size = ${pageSize}`);
  for (const sql of statements) {
    db.run(sql);
  }
  const bytes = db.export();
  db.close();
  return bytes;
}

function rows(
  source: { scan: FileSqliteSource['scan'] },
  table: string,
  columns: readonly ScanColumn[],
): SqlValue[][] {
  const out: SqlValue[][] = [];
  source.scan(table, columns, (r) => {
    const v: SqlValue[] = [];
    for (let i = 0; i < r.width; i++) {
      const x = r.value(i);
      v.push(x instanceof Uint8Array ? Array.from(x).join(',') : x);
    }
    out.push(v);
  });
  return out;
}

describe('the SQLite file reader', () => {
  it('reads every row and type as SQLite does, through deep trees, overflow pages and a tiny cache', async () => {
    // 512-byte pages: 3000 rows make a b-tree of several levels; 5000-character texts spill
    // over a chain of overflow pages; ALTER TABLE leaves old rows without the new column.
    const inserts: string[] = [];
    for (let i = 1; i <= 3000; i++) {
      const text = i % 97 === 0 ? `'${'x'.repeat(5000)}${i}'` : `'name ${i} é'`;
      const big = i % 5 === 0 ? `${2 ** 60 + i}` : `${-i * 123457}`;
      const blob = i % 7 === 0 ? `x'00ff${(i % 256).toString(16).padStart(2, '0')}'` : 'NULL';
      inserts.push(
        `INSERT INTO t (a, b, c, d, e) VALUES (${i * 3}, ${text}, ${big}, ${i / 8}, ${blob})`,
      );
    }
    const bytes = await database(512, [
      'CREATE TABLE t (a INTEGER, b TEXT, c INTEGER, d REAL, e BLOB) -- a comment, (with) parens',
      'BEGIN',
      ...inserts.slice(0, 1500),
      'ALTER TABLE t ADD COLUMN f INTEGER',
      ...inserts.slice(1500),
      'UPDATE t SET f = a + 1 WHERE a > 6000',
      'COMMIT',
    ]);
    const SQL = await loadSqlJs();
    const db = new SQL.Database(bytes);
    const columns = ['a', 'b', 'c', 'd', 'e', 'f', 'missing'].map((name) => ({ name }));
    const expected = rows(new SqlJsSource(db), 't', columns);
    // 2 KiB of cache: the scan re-reads evicted blocks.
    const file = new FileSqliteSource(bytesAsRandomAccess(bytes), 2048);
    const got = rows(file, 't', columns);
    expect(got.length).toBe(3000);
    // The row hint comes down the tree's right edge alone: the largest rowid, 3000.
    expect(file.rowCountHint('t')).toBe(3000);
    expect(got).toEqual(expected);
    // Skipping columns reads the same values for the ones asked for.
    expect(rows(file, 't', [{ name: 'f' }, { name: 'a' }])).toEqual(
      rows(new SqlJsSource(db), 't', [{ name: 'f' }, { name: 'a' }]),
    );
    db.close();
  });

  it('reads the same rows when the visitor reads other pages mid-scan (blocks reused under it)', async () => {
    const others = ['u1', 'u2', 'u3', 'u4', 'u5'];
    const inserts: string[] = [];
    for (let i = 1; i <= 2000; i++) {
      inserts.push(`INSERT INTO t (a, b) VALUES (${i}, 'row ${i} ${'y'.repeat(i % 40)}')`);
      for (const other of others) {
        inserts.push(`INSERT INTO ${other} (c) VALUES (${-i})`);
      }
    }
    const bytes = await database(512, [
      'CREATE TABLE t (a INTEGER, b TEXT)',
      ...others.map((other) => `CREATE TABLE ${other} (c INTEGER)`),
      'BEGIN',
      ...inserts,
      'COMMIT',
    ]);
    const columns = [{ name: 'a' }, { name: 'b' }];
    const expected = rows(new FileSqliteSource(bytesAsRandomAccess(bytes)), 't', columns);
    // 2 KiB of cache (four 512-byte blocks): every row's visit reads the right edges of five
    // other tables, more pages than the cache holds, into the blocks the scan of t reads from.
    const file = new FileSqliteSource(bytesAsRandomAccess(bytes), 2048);
    const got: SqlValue[][] = [];
    file.scan('t', columns, (r) => {
      for (const other of others) {
        expect(file.rowCountHint(other)).toBe(2000);
      }
      got.push([r.value(0), r.value(1)]);
    });
    expect(got).toHaveLength(2000);
    expect(got).toEqual(expected);
  });

  it('splits 64-bit global ids exactly and gives the rowid for an INTEGER PRIMARY KEY', async () => {
    // 0x0001_0000_2A00_0007: vm 1, pid 42, tid 7; beyond 2^53 the number itself is rounded.
    const id = (1n << 48n) | (42n << 24n) | 7n;
    const huge = (0x7fffn << 48n) | (0xabcdefn << 24n) | 0x123456n;
    const bytes = await database(4096, [
      'CREATE TABLE "ids" ("id" INTEGER NOT NULL PRIMARY KEY, g INTEGER, s INTEGER)',
      `INSERT INTO ids VALUES (5, ${id}, 1700000000123456789), (9, ${huge}, NULL), (12, -5, 'text')`,
      // A real and a text where an id is split: SQLite's >> and & convert them to integers.
      `INSERT INTO ids VALUES (15, 2.5, '99 bottles'), (16, 'x', 3.75)`,
    ]);
    const SQL = await loadSqlJs();
    const db = new SQL.Database(bytes);
    const columns: ScanColumn[] = [
      { name: 'id' },
      { name: 'g', as: 'thread' },
      { name: 'g', as: 'proc' },
      { name: 's', as: 'int-text' },
      // Asked for again, split another way: each read fills its own slots.
      { name: 's', as: 'proc' },
      { name: 's' },
    ];
    const got = rows(new FileSqliteSource(bytesAsRandomAccess(bytes)), 'ids', columns);
    // 1700000000123456789 >> 48 = 6039, (>> 24) & 0xFFFFFF = 10288701.
    expect(got[0]).toEqual([
      5,
      1,
      42,
      7,
      1,
      42,
      '1700000000123456789',
      6039,
      10288701,
      1.7e18 + 123456789,
    ]);
    expect(got[1]).toEqual([
      9,
      0x7fff,
      0xabcdef,
      0x123456,
      0x7fff,
      0xabcdef,
      null,
      null,
      null,
      null,
    ]);
    // 2.5 splits as 2 (tid 2); '99 bottles' as 99; 'x' as 0; 3.75 as 3.
    expect(got[3]).toEqual([15, 0, 0, 2, 0, 0, null, 0, 0, '99 bottles']);
    expect(got[4]).toEqual([16, 0, 0, 0, 0, 0, null, 0, 0, 3.75]);
    expect(got).toEqual(rows(new SqlJsSource(db), 'ids', columns));
    db.close();
  });

  it('reads column names from CREATE TABLE with comments, quotes and table constraints', () => {
    const shape = parseCreateTable(
      'CREATE TABLE x (\n  "a b" INTEGER, -- note, with comma\n  [c] TEXT /* x, y */,\n' +
        '  d VARCHAR(10, 2) NOT NULL, k INTEGER,\n  PRIMARY KEY (k), UNIQUE (d, c)\n)',
    );
    expect(shape).toEqual({ columns: ['a b', 'c', 'd', 'k'], rowidColumn: 3, withoutRowid: false });
  });
});
