import { describe, expect, it } from 'vitest';
import { importErrorOf, importFixture } from '../test-support.ts';
import { chunksOf, readAll } from './chunks.ts';
import { ImportLimitError } from './limit-error.ts';

async function* chunks(...sizes: number[]): AsyncGenerator<Uint8Array> {
  let value = 0;
  for (const size of sizes) {
    yield await Promise.resolve(Uint8Array.from({ length: size }, () => value++ & 0xff));
  }
}

const counting = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => i & 0xff);

describe('readAll', () => {
  it('copies each chunk into one array of the expected size as it arrives, keeping none', async () => {
    // A source that reuses one buffer for every chunk (as pooled readers do): a chunk kept
    // until the end would show the last chunk's bytes.
    async function* reusing(): AsyncGenerator<Uint8Array> {
      const buffer = new Uint8Array(4);
      for (let i = 0; i < 3; i++) {
        buffer.set([4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3]);
        yield await Promise.resolve(buffer);
      }
    }
    const whole = await readAll(reusing(), 12);
    expect(whole).toEqual(counting(12));
    expect(whole.buffer.byteLength).toBe(12);
  });

  it('reads every byte when the source delivers fewer or more than expected, or says nothing', async () => {
    expect(await readAll(chunks(3, 2), 10)).toEqual(counting(5));
    expect(await readAll(chunks(4, 4, 4), 6)).toEqual(counting(12));
    expect(await readAll(chunks(4, 4, 4))).toEqual(counting(12));
    expect(await readAll(chunks(), 0)).toEqual(new Uint8Array(0));
  });
});

describe('chunksOf a Blob', () => {
  it('stops reading the Blob when its consumer stops early', async () => {
    let cancelled = false;
    class CountingBlob extends Blob {
      override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
        let n = 0;
        return new ReadableStream({
          pull(controller) {
            controller.enqueue(new Uint8Array([n++]));
          },
          cancel() {
            cancelled = true;
          },
        });
      }
    }
    for await (const chunk of chunksOf(new CountingBlob([]))) {
      expect(chunk).toEqual(new Uint8Array([0]));
      break;
    }
    expect(cancelled).toBe(true);
  });
});

describe('limits', () => {
  it('reports an inflate past the limit as an ImportLimitError carrying the limit', async () => {
    const error = await importErrorOf(
      importFixture('broken/gzip-bomb.json.gz', { maxBytes: 1 << 20 }),
    );
    expect(error).toBeInstanceOf(ImportLimitError);
    expect((error as ImportLimitError).limit).toBe(1 << 20);
    expect((error as ImportLimitError).unit).toBe('bytes');
  });

  it('reports a file past the limit as an ImportLimitError', async () => {
    const error = await importErrorOf(
      importFixture('nsys/2025.3.1/train.json', { maxBytes: 1000 }),
    );
    expect(error).toBeInstanceOf(ImportLimitError);
    expect(error.message).toContain('larger than the 1000-byte limit');
  });
});
