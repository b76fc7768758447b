import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTrace } from '@streamscope/trace';
import { executorBackends } from '../integrations/backends.ts';
import { summarize, traceTools } from '../integrations/trace-tools.ts';
import { workloadService } from '../integrations/workload-service.ts';
import { checkLiveMessage } from '../test-support/openapi-check.ts';
import { LiveClient } from '../test-support/live-client.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';

// The server with the executor's real backends: on a machine without a GPU `auto` is the
// simulator, which is what these tests run on.
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    backendSet: executorBackends(),
    workloads: workloadService(),
    tools: traceTools(),
    summarize,
    backend: 'sim',
  });
}, 60_000);

afterAll(async () => {
  await t.close();
});

async function runAndWatch(body: object): Promise<{ id: string; client: LiveClient }> {
  const response = await t.api('POST', '/api/runs', '/api/runs', body);
  expect(response.status).toBe(202);
  const id = (response.body as { id: string }).id;
  const client = await LiveClient.connect(t.liveUrl);
  client.send({ type: 'subscribe', runId: id });
  await client.until((c) => c.messages.some((m) => m.type === 'finished' || m.type === 'failed'));
  return { id, client };
}

describe('runs on the executor backends', () => {
  it('streams a simulated preset run live and reports its summary', async () => {
    const { id, client } = await runAndWatch({ preset: 'overlap-blog', pace: 'fast' });
    const finished = client.messages.find((m) => m.type === 'finished');
    expect(finished).toMatchObject({ type: 'finished', runId: id });
    client.messages.forEach(checkLiveMessage);
    const data = await fetch(`${t.base}/api/traces/${id}/data`);
    const stored = loadTrace(new Uint8Array(await data.arrayBuffer()));
    expect(client.trace.ops.count).toBe(stored.ops.count);
    expect(stored.ops.count).toBeGreaterThan(0);
    const entry = await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}');
    expect(entry.body).toMatchObject({
      status: 'finished',
      backend: 'sim',
      preset: 'overlap-blog',
      format: 'streamscope-sim',
    });
    const analysis = await t.api('GET', `/api/traces/${id}/analysis`, '/api/traces/{id}/analysis');
    expect(analysis.status).toBe(200);
    await client.close();
  });

  it('runs on a chosen simulator profile and refuses an unknown one', async () => {
    const { id, client } = await runAndWatch({ preset: 'pipeline', target: 'h100', pace: 'fast' });
    expect(client.messages.at(-1)).toMatchObject({ type: 'finished' });
    expect((await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}')).body).toMatchObject({
      target: 'h100',
    });
    await client.close();
    const refused = await t.api('POST', '/api/runs', '/api/runs', {
      preset: 'pipeline',
      target: 'gtx480',
    });
    expect(refused).toMatchObject({
      status: 422,
      body: { error: { code: 'bad-target', path: '$.target' } },
    });
  });

  it('replays a stored trace', async () => {
    const first = await runAndWatch({ preset: 'overlap-blog', pace: 'fast' });
    await first.client.close();
    const replay = await runAndWatch({ backend: 'replay', replayOf: first.id, pace: 'fast' });
    expect(replay.client.messages.find((m) => m.type === 'finished')).toBeDefined();
    expect(replay.client.trace.ops.count).toBe(first.client.trace.ops.count);
    await replay.client.close();
  });

  it('lists the three backends and the CUDA probe', async () => {
    const backends = await t.api('GET', '/api/backends', '/api/backends');
    const names = (backends.body as { name: string }[]).map((b) => b.name).sort();
    expect(names).toEqual(['cuda', 'replay', 'sim']);
    const devices = await t.api('GET', '/api/devices', '/api/devices');
    expect(devices.body).toHaveProperty('probe.addon');
  });
});
