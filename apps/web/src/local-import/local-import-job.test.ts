// @vitest-environment node
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { importTrace } from '@streamscope/importers';
import { loadTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importLocalFile } from './local-import-job.ts';

const fixture = (name: string): Blob =>
  new Blob([readFileSync(fileURLToPath(new URL(`../../../../fixtures/${name}`, import.meta.url)))]);

function run(name: string, signal = new AbortController().signal) {
  const steps: number[] = [];
  const result = importLocalFile(fixture(name), name.split('/').pop()!, {
    signal,
    onProgress: (readBytes) => steps.push(readBytes),
  });
  return { result, steps };
}

describe('importLocalFile', () => {
  it('reads a gzip kineto trace into codec bytes and the analysis, reporting bytes read', async () => {
    const { result, steps } = run('kineto/train.pt.trace.json.gz');
    const done = await result;
    expect(done.type).toBe('done');
    if (done.type !== 'done') {
      return;
    }
    const direct = await importTrace(fixture('kineto/train.pt.trace.json.gz'), {
      fileName: 'train.pt.trace.json.gz',
    });
    const trace = loadTrace(done.traceBytes);
    expect(trace.ops.count).toBe(direct.trace.ops.count);
    expect(trace.tracks.length).toBe(direct.trace.tracks.length);
    expect(done.analysis).toMatchObject({ metrics: { gpuOpCount: expect.any(Number) as number } });
    expect(steps.at(-1)).toBe(fixture('kineto/train.pt.trace.json.gz').size);
  });

  it('reads an nsys SQLite export through sql.js, naming each table once all is read', async () => {
    const blob = fixture('nsys/2025.3.1/train.sqlite');
    const tables: string[] = [];
    const done = await importLocalFile(blob, 'train.sqlite', {
      signal: new AbortController().signal,
      onProgress: (readBytes, totalBytes, table) => {
        if (table !== undefined) {
          expect([readBytes, totalBytes]).toEqual([blob.size, blob.size]);
          tables.push(table);
        }
      },
    });
    expect(done.type).toBe('done');
    if (done.type === 'done') {
      expect(loadTrace(done.traceBytes).meta.sourceFormat).toBe('nsys-sqlite');
    }
    expect(tables).toContain('kernels');
    expect(tables.at(-1)).toBe('devices');
  });

  it('reports a cancel as cancelled, not as a broken file', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await run('nsys/2025.3.1/train.json', controller.signal).result).toMatchObject({
      type: 'failed',
      cancelled: true,
    });
  });

  it("names the file and the importer's words for a file it cannot read", async () => {
    const failed = await run('broken/wrong-format.json').result;
    expect(failed).toMatchObject({ type: 'failed', cancelled: false });
    expect(failed.type === 'failed' ? failed.message : '').toContain('wrong-format.json');
  });
});
