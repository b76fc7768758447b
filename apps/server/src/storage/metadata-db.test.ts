import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TraceEntry } from '../api-types.ts';
import { MetadataDb } from './metadata-db.ts';

/** sql.js databases made, and exported, on this thread (the event loop's). */
const onLoop = vi.hoisted(() => ({ databases: 0, exports: 0 }));

vi.mock('sql.js', async (importOriginal) => {
  const real = (await importOriginal<{ default: typeof initSqlJs }>()).default;
  const counted = async (config?: Parameters<typeof initSqlJs>[0]) => {
    const SQL = await real(config);
    class Counted extends SQL.Database {
      constructor(...args: ConstructorParameters<typeof SQL.Database>) {
        super(...args);
        onLoop.databases++;
      }
      override export(): Uint8Array {
        onLoop.exports++;
        return super.export();
      }
    }
    return { ...SQL, Database: Counted };
  };
  return { default: counted };
});

let dir = '';

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'streamscope-metadata-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a metadata database from before content hashes', () => {
  it('gains the content_sha256 column and keeps its rows', async () => {
    const SQL = await initSqlJs();
    const old = new SQL.Database();
    old.exec(`CREATE TABLE traces (id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT NOT NULL,
      status TEXT NOT NULL, created_at TEXT NOT NULL, finished_at TEXT,
      op_count INTEGER NOT NULL DEFAULT 0, span_ns REAL NOT NULL DEFAULT 0, format TEXT NOT NULL,
      backend TEXT, target TEXT, reason TEXT, preset TEXT, file_name TEXT, file_bytes INTEGER,
      warnings TEXT)`);
    old.run(
      `INSERT INTO traces (id, source, title, status, created_at, format) VALUES (?, ?, ?, ?, ?, ?)`,
      ['old1', 'import', 'before', 'imported', '2026-01-01T00:00:00.000Z', 'nsys-json'],
    );
    const filePath = path.join(dir, 'streamscope.db');
    await writeFile(filePath, old.export());

    const { db } = await MetadataDb.open(filePath);
    const hash = 'ab'.repeat(32);
    db.insert({
      id: 'new1',
      source: 'import',
      title: 'after',
      status: 'imported',
      createdAt: '2026-01-02T00:00:00.000Z',
      opCount: 1,
      spanNs: 1,
      format: 'nsys-json',
      contentSha256: hash,
    });
    expect(db.get('old1')?.entry.contentSha256).toBeUndefined();
    expect(db.get('old1')?.entry.title).toBe('before');
    expect(db.get('new1')?.entry.contentSha256).toBe(hash);
    await db.flush();
  });
});

describe('a metadata database from before merge keys', () => {
  it('gains the merge_key column, keeps its rows, and keeps a merge key across a reopen', async () => {
    const SQL = await initSqlJs();
    const old = new SQL.Database();
    old.exec(`CREATE TABLE traces (id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT NOT NULL,
      status TEXT NOT NULL, created_at TEXT NOT NULL, finished_at TEXT,
      op_count INTEGER NOT NULL DEFAULT 0, span_ns REAL NOT NULL DEFAULT 0, format TEXT NOT NULL,
      backend TEXT, target TEXT, reason TEXT, preset TEXT, file_name TEXT, file_bytes INTEGER,
      warnings TEXT, content_sha256 TEXT)`);
    const hash = 'cd'.repeat(32);
    old.run(
      `INSERT INTO traces (id, source, title, status, created_at, format, content_sha256)
        VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ['old1', 'import', 'an upload', 'imported', '2026-01-01T00:00:00.000Z', 'chrome-trace', hash],
    );
    old.run(
      `INSERT INTO traces (id, source, title, status, created_at, format) VALUES (?, ?, ?, ?, ?, ?)`,
      ['old2', 'import', 'a merge', 'imported', '2026-01-01T00:00:01.000Z', 'chrome-trace'],
    );
    const filePath = path.join(dir, 'streamscope.db');
    await writeFile(filePath, old.export());

    const { db } = await MetadataDb.open(filePath);
    const mergeKey = 'ef'.repeat(32);
    db.insert({
      id: 'new1',
      source: 'import',
      title: 'a merge since',
      status: 'imported',
      createdAt: '2026-01-02T00:00:00.000Z',
      opCount: 2,
      spanNs: 2,
      format: 'chrome-trace',
      mergeKey,
    });
    await db.close();

    const { db: reopened } = await MetadataDb.open(filePath);
    expect(reopened.get('old1')?.entry).toMatchObject({ title: 'an upload', contentSha256: hash });
    expect(reopened.get('old1')?.entry.mergeKey).toBeUndefined();
    expect(reopened.get('old2')?.entry.title).toBe('a merge');
    expect(reopened.get('old2')?.entry.mergeKey).toBeUndefined();
    expect(reopened.get('new1')?.entry.mergeKey).toBe(mergeKey);
    await reopened.close();
  });
});

function entry(i: number): TraceEntry {
  return {
    id: `t${String(i).padStart(5, '0')}`,
    source: 'import',
    title: `trace ${i}`,
    status: 'imported',
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    opCount: i,
    spanNs: i * 10,
    format: 'nsys-json',
    fileName: `t${i}.json`,
  };
}

describe('metadata changes on the event loop', () => {
  it('never make or export a SQLite database on the loop, and still reach the file', async () => {
    const filePath = path.join(dir, 'streamscope.db');
    const { db } = await MetadataDb.open(filePath);
    for (let i = 0; i < 300; i++) {
      db.insert(entry(i));
    }
    await db.flush();
    onLoop.databases = 0;
    onLoop.exports = 0;
    db.insert(entry(300));
    db.update('t00007', { status: 'failed', reason: 'gone', fileName: undefined });
    db.delete('t00008');
    // Reads answer from the loop's own copy at once, before anything is written.
    expect(db.get('t00300')?.entry.opCount).toBe(300);
    expect(db.get('t00007')?.entry).toMatchObject({ status: 'failed', reason: 'gone' });
    expect(db.get('t00007')?.entry.fileName).toBeUndefined();
    expect(db.get('t00008')).toBeUndefined();
    expect(db.list()[0]?.entry.id).toBe('t00300');
    await db.close();
    // The whole O(database) job (sql.js insert, export) ran in the metadata thread.
    expect(onLoop).toEqual({ databases: 0, exports: 0 });

    const { db: reopened } = await MetadataDb.open(filePath);
    const ids = reopened.list().map((row) => row.entry.id);
    expect(ids).toHaveLength(300);
    expect(ids[0]).toBe('t00300');
    expect(ids).not.toContain('t00008');
    expect(reopened.get('t00007')?.entry).toEqual({
      ...entry(7),
      status: 'failed',
      reason: 'gone',
      fileName: undefined,
    });
    await reopened.close();
  });

  it('keeps every change made while a write is on its way', async () => {
    const filePath = path.join(dir, 'streamscope.db');
    const { db } = await MetadataDb.open(filePath);
    db.insert(entry(0));
    // 200 changes while the first write is under way: none is lost between writes.
    const written: Promise<void>[] = [];
    for (let i = 1; i <= 200; i++) {
      db.insert(entry(i));
      written.push(db.flush());
    }
    await Promise.all(written);
    await db.close();
    const SQL = await initSqlJs();
    const check = new SQL.Database(await readFile(filePath));
    expect(check.exec('SELECT count(*) FROM traces')[0]?.values[0]?.[0]).toBe(201);
    check.close();
  });
});
