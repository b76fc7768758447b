import type * as WorkloadModule from '@streamscope/workload';
import { loadTrace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TraceEntry } from '../api-types.ts';
import { executorBackends } from '../integrations/backends.ts';
import { traceTools } from '../integrations/trace-tools.ts';
import { workloadService } from '../integrations/workload-service.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { sharedWorkers } from '../workers/server-workers.ts';

// Every validation (which expands the workload into its plan) on this thread, the server's
// event loop, is counted; worker threads load their own copy of the package, unseen here.
const onLoop = vi.hoisted(() => ({ expansions: 0 }));
vi.mock('@streamscope/workload', async (importOriginal) => {
  const actual = await importOriginal<typeof WorkloadModule>();
  return {
    ...actual,
    validateWorkload: (json: unknown) => {
      onLoop.expansions++;
      return actual.validateWorkload(json);
    },
  };
});

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    backendSet: executorBackends(),
    workloads: workloadService(sharedWorkers()),
    tools: traceTools(),
    backend: 'sim',
  });
}, 60_000);

afterAll(async () => {
  await t.close();
});

async function ended(id: string): Promise<TraceEntry> {
  for (;;) {
    const entry = (await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}')).body as TraceEntry;
    if (entry.status !== 'queued' && entry.status !== 'running') {
      return entry;
    }
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}

async function started(body: object): Promise<string> {
  const reply = await t.api('POST', '/api/runs', '/api/runs', body);
  expect(reply.status).toBe(202);
  return (reply.body as { id: string }).id;
}

describe('a simulator run on the event loop', { timeout: 60_000 }, () => {
  it('expands no workload: a worker validates, expands and simulates it', async () => {
    onLoop.expansions = 0;
    const id = await started({ preset: 'overlap-blog', pace: 'fast', title: 'off the loop' });
    const entry = await ended(id);

    expect(onLoop.expansions).toBe(0);
    expect(entry).toMatchObject({ status: 'finished', backend: 'sim', format: 'streamscope-sim' });
    const data = await fetch(`${t.base}/api/traces/${id}/data`);
    const stored = loadTrace(new Uint8Array(await data.arrayBuffer()));
    expect(stored.ops.count).toBe(entry.opCount);
    expect(stored.ops.count).toBeGreaterThan(0);
    // The worker's meta came through the codec, with the run manager's title kept.
    expect(stored.meta).toMatchObject({ title: 'off the loop', sourceFormat: 'streamscope-sim' });
  });

  it('cancels a run on its worker, and fails one past its time limit with the reason', async () => {
    // Realtime, 1000 times slower than GPU time: the preset's ms of GPU time take seconds.
    const slow = { preset: 'overlap-blog', pace: 'realtime', slowdown: 1000 };
    const cancelled = await started(slow);
    const cancel = await fetch(`${t.base}/api/runs/${cancelled}/cancel`, { method: 'POST' });
    expect(cancel.status).toBeLessThan(300);
    expect((await ended(cancelled)).status).toBe('cancelled');

    const limited = await started({ ...slow, timeLimitMs: 200 });
    const entry = await ended(limited);
    expect(entry.status).toBe('failed');
    expect(JSON.stringify(entry)).toContain('time limit of 200 ms exceeded');
  });
});
