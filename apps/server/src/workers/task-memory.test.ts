import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { importPeakBytesPerOp } from '@streamscope/importers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  importBytesPerFileByte,
  importBytesPerGzipByte,
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
  it("takes the file's size times the measured peak, more for a gzip'd file, at most the ops it may keep", async () => {
    const text = '{"traceEvents":[]}\n'.repeat(1000);
    const plain = path.join(dir, 'plain.json');
    const packed = path.join(dir, 'packed.json.gz');
    await writeFile(plain, text);
    const gz = gzipSync(text);
    await writeFile(packed, gz);
    expect(await importMemoryBytes(plain, Infinity)).toBe(text.length * importBytesPerFileByte);
    expect(await importMemoryBytes(packed, Infinity)).toBe(gz.length * importBytesPerGzipByte);
    expect(await importMemoryBytes(plain, 10)).toBe(10 * importPeakBytesPerOp);
  });
});
