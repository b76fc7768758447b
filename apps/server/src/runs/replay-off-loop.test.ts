import type * as TraceModule from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TraceEntry } from '../api-types.ts';
import { executorBackends } from '../integrations/backends.ts';
import { traceTools } from '../integrations/trace-tools.ts';
import { workloadService } from '../integrations/workload-service.ts';
import { kernelTrace } from '../test-support/kernel-trace.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { upload } from '../test-support/upload.ts';

// Every whole-trace decode on this thread (the server's event loop) is counted; the worker
// threads load their own copy of the codec, which this does not see.
const onLoop = vi.hoisted(() => ({ decodes: 0 }));
vi.mock('@streamscope/trace', async (importOriginal) => {
  const actual = await importOriginal<typeof TraceModule>();
  return {
    ...actual,
    loadTrace: (bytes: Uint8Array) => {
      onLoop.decodes++;
      return actual.loadTrace(bytes);
    },
  };
});

let t: TestServer;
let codec: typeof TraceModule;

beforeAll(async () => {
  codec = await vi.importActual<typeof TraceModule>('@streamscope/trace');
  t = await startTestServer({
    backendSet: executorBackends(),
    workloads: workloadService(),
    tools: traceTools(),
    backend: 'sim',
  });
}, 60_000);

afterAll(async () => {
  await t.close();
});

async function finishedRun(body: object): Promise<string> {
  const started = await t.api('POST', '/api/runs', '/api/runs', body);
  expect(started.status).toBe(202);
  const id = (started.body as { id: string }).id;
  for (;;) {
    const entry = (await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}')).body as TraceEntry;
    if (entry.status !== 'queued' && entry.status !== 'running') {
      expect(entry.status).toBe('finished');
      return id;
    }
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}

async function storedTrace(id: string): Promise<TraceModule.Trace> {
  const data = await fetch(`${t.base}/api/traces/${id}/data`);
  expect(data.status).toBe(200);
  return codec.loadTrace(new Uint8Array(await data.arrayBuffer()));
}

describe('a replay run on the event loop', { timeout: 60_000 }, () => {
  it('decodes no trace: a worker loads and sorts the source, and it is kept for the next', async () => {
    const sample = codec.saveTrace(kernelTrace(3000, { title: 'to replay' }));
    const stored = await upload<TraceEntry>(t.base, sample, 'sample.sstrace');
    expect(stored.status).toBe(201);
    onLoop.decodes = 0;

    const first = await finishedRun({ backend: 'replay', replayOf: stored.body.id, pace: 'fast' });
    const second = await finishedRun({ backend: 'replay', replayOf: stored.body.id, pace: 'fast' });

    expect(onLoop.decodes).toBe(0);
    // The worker's columns and order reach the loop whole: every op, in end-time order, with
    // its name (kernel k ends at 100k + 50).
    for (const id of [first, second]) {
      const replayed = await storedTrace(id);
      expect(replayed.ops.count).toBe(3000);
      const ops = replayed.ops.columns();
      expect(ops.endNs[2999]! - ops.startNs[0]!).toBe(2999 * 100 + 50);
      expect(replayed.name(ops.nameId[7]!)).toBe(
        codec.loadTrace(sample).name(codec.loadTrace(sample).ops.columns().nameId[7]!),
      );
    }
    expect(t.server.runs.replaySources.ids()).toEqual([stored.body.id]);
  });
});
