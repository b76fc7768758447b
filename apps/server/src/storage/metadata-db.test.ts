import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MetadataDb } from './metadata-db.ts';

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
