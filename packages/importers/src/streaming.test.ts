import fc from 'fast-check';
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
