import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type * as TraceModule from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TraceEntry } from '../api-types.ts';
import { importForeign } from '../integrations/importers.ts';
import { traceTools } from '../integrations/trace-tools.ts';
import { kernelTrace } from '../test-support/kernel-trace.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { upload } from '../test-support/upload.ts';

// Every whole-trace decode and encode on this thread (the server's event loop) is counted; the
// worker threads load their own copy of the codec, which this does not see.
const onLoop = vi.hoisted(() => ({ decodes: 0, encodes: 0 }));
vi.mock('@streamscope/trace', async (importOriginal) => {
  const actual = await importOriginal<typeof TraceModule>();
  return {
    ...actual,
    loadTrace: (bytes: Uint8Array) => {
      onLoop.decodes++;
      return actual.loadTrace(bytes);
    },
    saveTrace: (trace: TraceModule.Trace) => {
      onLoop.encodes++;
      return actual.saveTrace(trace);
    },
  };
});

const fixtures = path.resolve(import.meta.dirname, '../../../../fixtures');
let t: TestServer;
let codec: typeof TraceModule;

beforeAll(async () => {
  codec = await vi.importActual<typeof TraceModule>('@streamscope/trace');
  t = await startTestServer({ importForeign, tools: traceTools() });
});

afterAll(async () => {
  await t.close();
});

async function imported(body: Uint8Array, fileName: string): Promise<TraceEntry> {
  const reply = await upload<TraceEntry>(t.base, body, fileName);
  expect(reply.status).toBe(201);
  return reply.body;
}

describe('the event loop while traces are imported, cut and merged', { timeout: 120_000 }, () => {
  it('decodes and encodes no trace: workers do, and their bytes are stored as they are', async () => {
    const sample = codec.saveTrace(kernelTrace(2000, { title: 'container' }));
    const rank0 = await readFile(path.join(fixtures, 'kineto/rank0.pt.trace.json.gz'));
    const rank1 = await readFile(path.join(fixtures, 'kineto/rank1.pt.trace.json.gz'));
    onLoop.decodes = 0;
    onLoop.encodes = 0;

    const container = await imported(sample, 'sample.sstrace');
    expect(container).toMatchObject({ title: 'container', opCount: 2000, spanNs: 1999 * 100 + 50 });
    const ranks = [await imported(rank0, 'rank0.json.gz'), await imported(rank1, 'rank1.json.gz')];
    const merged = await fetch(`${t.base}/api/imports/merge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ids: ranks.map((r) => r.id) }),
    });
    expect(merged.status).toBe(201);
    // kernel k runs [100k, 100k + 50]: [1000, 1999] holds kernels 10..19 (9 ends at 950).
    const windowed = await fetch(`${t.base}/api/traces/${container.id}/data?fromNs=1000&toNs=1999`);
    expect(windowed.status).toBe(200);
    const windowBytes = new Uint8Array(await windowed.arrayBuffer());
    const whole = await fetch(`${t.base}/api/traces/${container.id}/data`);
    const stored = new Uint8Array(await whole.arrayBuffer());

    expect(onLoop).toEqual({ decodes: 0, encodes: 0 });
    expect(codec.loadTrace(windowBytes).ops.count).toBe(10);
    // The container was checked and encoded again in a worker: the same trace, stored as made.
    expect(stored).toEqual(sample);
  });
});
