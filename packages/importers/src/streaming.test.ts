import fc from 'fast-check';
import { saveTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { dumpTrace } from './dump-trace.ts';
import { importTrace } from './import-trace.ts';
import { readFixture } from './test-support.ts';

async function* inChunks(bytes: Uint8Array, sizes: readonly number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  let k = 0;
  while (at < bytes.length) {
    const size = sizes[k++ % sizes.length]!;
    await Promise.resolve(); // a real stream yields to the event loop between chunks
    yield bytes.slice(at, at + size);
    at += size;
  }
}

/**
 * `bytes` in chunks of `sizes` handed out in one buffer that is zeroed and filled again each time
 * the next chunk is asked for, as a file reader that reuses its buffers may: whatever a reader
 * kept of a chunk without copying it reads as zeros (or as later bytes) afterwards.
 */
async function* inOneBuffer(
  bytes: Uint8Array,
  sizes: readonly number[],
): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(Math.max(...sizes));
  let at = 0;
  let k = 0;
  while (at < bytes.length) {
    const size = Math.min(sizes[k++ % sizes.length]!, bytes.length - at);
    buffer.fill(0);
    buffer.set(bytes.subarray(at, at + size));
    await Promise.resolve();
    yield buffer.subarray(0, size);
    at += size;
  }
}

describe('streaming', () => {
  const cases = [
    'nsys/older/layout-a-2021.json',
    'kineto/kineto-2021.json',
    'kineto/array-unterminated.json',
  ];
  for (const file of cases) {
    it(`imports ${file} the same whatever the chunk boundaries`, async () => {
      const bytes = readFixture(file);
      const whole = dumpTrace((await importTrace(bytes, { fileName: file })).trace, 1000);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 }),
          async (sizes) => {
            const chunked = await importTrace(inChunks(bytes, sizes), { fileName: file });
            expect(dumpTrace(chunked.trace, 1000)).toBe(whole);
          },
        ),
        { numRuns: 25 },
      );
    });
  }

  it('imports the same from a source that fills one buffer again for each chunk', async () => {
    const saved = saveTrace(
      (await importTrace(readFixture('kineto/syncs.json'), { fileName: 'k.json' })).trace,
    );
    const cases: [string, Uint8Array][] = [
      ['train.json', readFixture('nsys/2025.3.1/train.json')],
      ['multi.json.gz', readFixture('nsys/2025.3.1/multi.json.gz')],
      ['layout-a-2021.json', readFixture('nsys/older/layout-a-2021.json')],
      ['train.pt.trace.json.gz', readFixture('kineto/train.pt.trace.json.gz')],
      ['epoch-us.json', readFixture('kineto/epoch-us.json')],
      ['array-unterminated.json', readFixture('kineto/array-unterminated.json')],
      ['nsys-converted.json', readFixture('chrome/nsys-converted.json')],
      ['train.sqlite', readFixture('nsys/2025.3.1/train.sqlite')],
      ['syncs.sstrace', saved],
    ];
    for (const [fileName, bytes] of cases) {
      const whole = dumpTrace((await importTrace(bytes, { fileName })).trace, 1000);
      // Chunks shorter than the sniffed head (4 KiB) as well as longer ones.
      for (const sizes of [[997, 65_536, 3], [1 << 20]]) {
        const reused = await importTrace(inOneBuffer(bytes, sizes), { fileName });
        expect(dumpTrace(reused.trace, 1000), `${fileName} in chunks of ${sizes.join(', ')}`).toBe(
          whole,
        );
      }
    }
  }, 60_000);

  it('reads a Blob and reports progress up to the whole size', async () => {
    const bytes = readFixture('nsys/2025.3.1/train.json');
    const seen: number[] = [];
    const { trace } = await importTrace(new Blob([bytes]), {
      fileName: 'train.json',
      onProgress: (read, total) => {
        seen.push(read);
        expect(total).toBe(bytes.length);
      },
    });
    expect(trace.ops.count).toBeGreaterThan(2000);
    expect(seen.at(-1)).toBe(bytes.length);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('reads gzip from a stream of small chunks', async () => {
    const bytes = readFixture('kineto/train.pt.trace.json.gz');
    const { trace } = await importTrace(inChunks(bytes, [997]), {
      fileName: 'train.pt.trace.json.gz',
    });
    const plain = await importTrace(readFixture('kineto/train.pt.trace.json.gz'), {
      fileName: 'x.json.gz',
    });
    expect(dumpTrace(trace)).toBe(
      dumpTrace(plain.trace).replace('x.json.gz', 'train.pt.trace.json.gz'),
    );
  });

  it('holds memory for the ops kept, not for the file: the trace is far smaller than the input', async () => {
    const bytes = readFixture('nsys/2025.3.1/many.json.gz');
    const { trace } = await importTrace(bytes, { fileName: 'many.json.gz' });
    // 26 MB of JSON become ~72,000 ops at well under 100 bytes each.
    expect(trace.ops.byteSize()).toBeLessThan(100 * trace.ops.count);
  }, 30_000);
});
