import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromeBatchChunks, chromeTraceChunks, exportTestTrace } from '@streamscope/importers';
import { TraceEncoder, saveTrace, syntheticTrace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTraceFile, withTraceBatches } from './load-trace-file.ts';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'load-trace-file-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function stored(name: string, bytes: Uint8Array): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  return file;
}

/** The export of a stored file read a batch at a time. */
async function batchExport(file: string, partial = false): Promise<string> {
  return withTraceBatches({ path: file, partial }, undefined, (reader) =>
    Promise.resolve([...chromeBatchChunks(reader)].join('')),
  );
}

describe('withTraceBatches', () => {
  it('exports a stored file to the byte as the whole decoded trace does', async () => {
    const file = await stored('big.sstrace', saveTrace(syntheticTrace(70_000)));
    const whole = [...chromeTraceChunks(await loadTraceFile({ path: file, partial: false }))];
    expect(await batchExport(file)).toBe(whole.join(''));
  }, 60_000);

  it("reads a live run's snapshot, which has no end batch yet", async () => {
    const trace = exportTestTrace(500, 12);
    const file = await stored('live.snapshot', new TraceEncoder(trace).encodeNew());
    const whole = await loadTraceFile({ path: file, partial: true });
    expect(await batchExport(file, true)).toBe([...chromeTraceChunks(whole)].join(''));
    await expect(batchExport(file, false)).rejects.toMatchObject({
      status: 500,
      code: 'unreadable-trace',
      message: expect.stringMatching(
        /^the stored trace cannot be read: live\.snapshot: no end batch after \d+ batches \(\d+ bytes\): the file is truncated$/,
      ) as unknown,
    });
  });

  it('refuses a corrupt op record by the file name, batch, record, field and byte', async () => {
    const bytes = saveTrace(exportTestTrace(100, 10));
    // Meta, strings, structure, then ops (batch 3): its first record's kind byte, after the
    // 16-byte header and firstIndex 0.
    const opsAt = batchOffset(bytes, 5) + 16 + 1;
    bytes[opsAt] = 0xee;
    const file = await stored('bad.sstrace', bytes);
    await expect(batchExport(file)).rejects.toMatchObject({
      status: 500,
      code: 'unreadable-trace',
      message: `the stored trace cannot be read: bad.sstrace: batch 3 (ops), record 0, field 'kind': unknown op kind 238 at byte ${opsAt + 1}`,
    });
  });
});

describe('loadTraceFile', () => {
  it('names the byte of the file, not of its 4 MiB read, when a batch past 4 MiB is corrupt', async () => {
    const bytes = saveTrace(syntheticTrace(400_000));
    // The first ops batch that starts past the first 4 MiB read: its first record's kind byte,
    // after the 16-byte header and the batch's firstIndex (a varint, 7 bits a byte).
    const batchAt = batchOffset(bytes, 5, 4 * 1024 * 1024);
    let kindAt = batchAt + 16;
    while (bytes[kindAt++]! >= 0x80) {
      // Still inside the varint.
    }
    bytes[kindAt] = 0xee;
    const file = await stored('late.sstrace', bytes);
    const failure = loadTraceFile({ path: file, partial: false });
    await expect(failure).rejects.toMatchObject({ status: 500, code: 'unreadable-trace' });
    const message = ((await failure.catch((error: unknown) => error)) as Error).message;
    // The same place the batch reader names (it reads by file position), down to the byte.
    const byBatches = ((await batchExport(file).catch((error: unknown) => error)) as Error).message;
    expect(message).toMatch(/unknown op kind 238 at byte \d+$/);
    expect(message.endsWith(`at byte ${kindAt + 1}`)).toBe(true);
    expect(byBatches.endsWith(`at byte ${kindAt + 1}`)).toBe(true);
  }, 60_000);
});

/** Where the first batch of `kind` at or after byte `from` starts in a record stream. */
function batchOffset(bytes: Uint8Array, kind: number, from = 0): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length; at += 16 + view.getUint32(at + 12, true)) {
    if (at >= from && view.getUint8(at + 5) === kind) {
      return at;
    }
  }
  throw new Error(`no batch of kind ${kind} after byte ${from}`);
}
