import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { importPeakBytesPerOp } from '@streamscope/importers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  containerBytesPerFileByte,
  containerMemoryBytes,
  importBytesPerGzipByte,
  importBytesPerJsonByte,
  importBytesPerSqliteByte,
  importMemoryBytes,
} from './task-memory.ts';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'task-memory-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('importMemoryBytes', () => {
  it("takes the file's size times the measured peak of its kind, at most the ops it may keep", async () => {
    const text = '{"traceEvents":[]}\n'.repeat(1000);
    const json = path.join(dir, 'plain.json');
    const packed = path.join(dir, 'packed.json.gz');
    const sqlite = path.join(dir, 'export.sqlite');
    await writeFile(json, text);
    const gz = gzipSync(text);
    await writeFile(packed, gz);
    const db = Buffer.alloc(4096);
    db.write('SQLite format 3\0', 'latin1');
    await writeFile(sqlite, db);
    expect(await importMemoryBytes(json, Infinity)).toBe(text.length * importBytesPerJsonByte);
    expect(await importMemoryBytes(packed, Infinity)).toBe(gz.length * importBytesPerGzipByte);
    expect(await importMemoryBytes(sqlite, Infinity)).toBe(4096 * importBytesPerSqliteByte);
    expect(await importMemoryBytes(sqlite, 10)).toBe(10 * importPeakBytesPerOp);
  });
});

describe('containerMemoryBytes', () => {
  it("takes the container's size times its measured peak, at most the ops it may keep", async () => {
    const file = path.join(dir, 'upload.sstrace');
    await writeFile(file, Buffer.alloc(5000));
    expect(await containerMemoryBytes(file, Infinity)).toBe(5000 * containerBytesPerFileByte);
    expect(await containerMemoryBytes(file, 20)).toBe(20 * importPeakBytesPerOp);
  });
});
