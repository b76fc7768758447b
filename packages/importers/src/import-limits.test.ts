import { gunzipSync } from 'node:zlib';
import { saveTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import type { ImportOptions } from './import-trace.ts';
import { importTrace, importPeakBytesPerOp, maxImportOpsFor } from './import-trace.ts';
import { ImportLimitError } from './io/limit-error.ts';
import { bytesAsRandomAccess } from './sqlite-reader/random-access.ts';
import { importErrorOf, importFixture, readFixture } from './test-support.ts';

/** The ops and ranges the fixture keeps with no limit (the limit counts both). */
async function recordsOf(relative: string): Promise<number> {
  const { trace } = await importFixture(relative);
  return trace.ops.count + trace.ranges.count;
}

async function limitErrorOf(
  relative: string,
  options: Partial<ImportOptions>,
): Promise<ImportLimitError> {
  const error = await importErrorOf(importFixture(relative, options));
  expect(error).toBeInstanceOf(ImportLimitError);
  return error as ImportLimitError;
}

describe('the limit of ops and ranges an import keeps', () => {
  it.each([
    'kineto/train.pt.trace.json.gz',
    'nsys/2025.3.1/train.json',
    'nsys/2025.3.1/graph.json.gz',
  ])(
    '%s: one record over it fails naming the limit; exactly at it, the import succeeds',
    async (fixture) => {
      const records = await recordsOf(fixture);
      expect(records).toBeGreaterThan(100);
      const error = await limitErrorOf(fixture, { maxOps: records - 1 });
      expect(error).toMatchObject({ unit: 'ops', limit: records - 1, file: fixture });
      expect(error.message).toBe(
        `${fixture}: the trace has more than ${records - 1} ops and ranges together, the limit an import keeps`,
      );
      const { trace } = await importFixture(fixture, { maxOps: records });
      expect(trace.ops.count + trace.ranges.count).toBe(records);
    },
  );

  it('a SQLite export read from its file is refused by its tables before a row is read', async () => {
    const bytes = gunzipSync(readFixture('nsys/2025.3.1/graph.sqlite.gz'));
    const whole = (await importTrace(bytesAsRandomAccess(bytes), { fileName: 'graph.sqlite' }))
      .trace;
    const ops = whole.ops.count;
    const stages: string[] = [];
    const error = await importErrorOf(
      importTrace(bytesAsRandomAccess(bytes), {
        fileName: 'graph.sqlite',
        maxOps: 10,
        onStage: (stage) => stages.push(stage),
      }),
    );
    expect(error).toBeInstanceOf(ImportLimitError);
    expect(error).toMatchObject({ unit: 'ops', limit: 10 });
    expect(error.message).toMatch(
      /^graph\.sqlite: the export's GPU activity and API call tables hold up to \d+ rows \(by their b-trees\), each an op, over the limit of 10 ops an import keeps$/,
    );
    // On a recorded export every row of those tables is an op: the bound is exact.
    expect(Number(/hold up to (\d+) rows/.exec(error.message)![1])).toBe(ops);
    // Refused before the first table: no stage was entered.
    expect(stages).toEqual([]);
    const atLimit = await importTrace(bytesAsRandomAccess(bytes), {
      fileName: 'graph.sqlite',
      maxOps: ops + whole.ranges.count,
    });
    expect(atLimit.trace.ops.count).toBe(ops);
  });

  it('with no limit given, none applies', async () => {
    const { trace } = await importFixture('kineto/train.pt.trace.json.gz', {});
    expect(trace.ops.count + trace.ranges.count).toBe(
      await recordsOf('kineto/train.pt.trace.json.gz'),
    );
  });

  it("is sized from a machine's memory at the measured peak per op", () => {
    expect(maxImportOpsFor(25e9)).toBe(Math.floor((25e9 * 0.6) / importPeakBytesPerOp));
    expect(maxImportOpsFor(0)).toBe(1);
  });
});

/** A source that cannot tell its size. */
async function* toAsync(chunks: Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) {
    yield await Promise.resolve(chunk);
  }
}

describe('a stream with its size given (totalBytes)', () => {
  function* streamOf(bytes: Uint8Array): Generator<Uint8Array> {
    for (let at = 0; at < bytes.length; at += 4096) {
      yield bytes.subarray(at, at + 4096);
    }
  }

  it.each(['kineto/train.pt.trace.json.gz', 'nsys/2025.3.1/train.json'])(
    '%s: the same trace whatever size is said (it only sizes the staging)',
    async (fixture) => {
      const raw = readFixture(fixture);
      const bytes = fixture.endsWith('.gz') ? new Uint8Array(gunzipSync(raw)) : raw;
      const direct = saveTrace((await importTrace(bytes, { fileName: 'f' })).trace);
      for (const totalBytes of [bytes.length, 1000, bytes.length * 50]) {
        const { trace } = await importTrace(toAsync(streamOf(bytes)), {
          fileName: 'f',
          totalBytes,
        });
        expect(saveTrace(trace)).toEqual(direct);
      }
    },
  );
});

describe('a streamed import stopped at its op limit', () => {
  it('says how far into the file it got and the ops the whole file would keep at that rate', async () => {
    const bytes = new Uint8Array(gunzipSync(readFixture('kineto/train.pt.trace.json.gz')));
    const { trace } = await importTrace(bytes, { fileName: 'train.json' });
    const records = trace.ops.count + trace.ranges.count;
    const error = await importErrorOf(
      importTrace(
        toAsync(
          (function* () {
            for (let at = 0; at < bytes.length; at += 4096) {
              yield bytes.subarray(at, at + 4096);
            }
          })(),
        ),
        { fileName: 'train.json', maxOps: 300, totalBytes: bytes.length },
      ),
    );
    const said =
      /more than 300 ops and ranges together, the limit an import keeps \(reached (\d+)% into the file: about ([\d.]+)(k?) in all\)$/.exec(
        error.message,
      );
    expect(said, error.message).not.toBeNull();
    const percent = Number(said![1]);
    const about = Number(said![2]) * (said![3] === 'k' ? 1000 : 1);
    expect(percent).toBeGreaterThan(0);
    expect(percent).toBeLessThan(100);
    // 300 records at that share of the file: a projection, at least the limit and near the truth.
    expect(about).toBeGreaterThan(300);
    expect(about).toBeGreaterThan(records / 2);
    expect(about).toBeLessThan(records * 2);
    // The same projection, unrounded, for the caller to say what --max-ops keeps it all.
    expect(error).toBeInstanceOf(ImportLimitError);
    expect((error as ImportLimitError).wanted! / about).toBeCloseTo(1, 1);
  });

  it("gives a SQLite export's op and NVTX rows as what would keep it all", async () => {
    const error = await limitErrorOf('nsys/2025.3.1/train.sqlite', { maxOps: 2000 });
    // 2,350 op rows and 48 NVTX rows: the import keeps 2,350 ops and 48 ranges.
    expect(error.wanted).toBe(2398);
  });
});
