import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPreset } from '@streamscope/workload';
import { Trace, loadTrace, saveTrace } from '@streamscope/trace';
import { traceTools } from '../integrations/trace-tools.ts';
import { workloadService } from '../integrations/workload-service.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { ServerWorkers, sharedWorkers } from '../workers/server-workers.ts';

let t: TestServer;

beforeEach(async () => {
  t = await startTestServer();
});

afterEach(async () => {
  await t.close();
});

interface Entry {
  readonly id: string;
  readonly status: string;
  readonly position?: number;
  readonly reason?: string;
}

async function post(body: unknown): Promise<{ status: number; body: unknown }> {
  return t.api('POST', '/api/runs', '/api/runs', body);
}

async function entry(id: string): Promise<Entry> {
  return (await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}')).body as Entry;
}

async function waitForStatus(id: string, status: string): Promise<Entry> {
  for (;;) {
    const e = await entry(id);
    if (e.status === status) {
      return e;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('REST API', () => {
  it('reports health, backends and the backend auto resolves to', async () => {
    const health = await t.api('GET', '/api/health', '/api/health');
    expect(health.body).toMatchObject({ ok: true, defaultBackend: 'sim', auth: 'none' });
    const backends = await t.api('GET', '/api/backends', '/api/backends');
    expect(backends.body).toEqual([
      { name: 'sim', available: true, targets: ['test-device'] },
      { name: 'cuda', available: false, reason: 'no test device here', targets: [] },
      { name: 'replay', available: true, targets: ['test-device'] },
    ]);
    const devices = await t.api('GET', '/api/devices', '/api/devices');
    expect(devices.body).toMatchObject({
      probe: { addon: { loaded: false, reason: 'no addon in tests' } },
    });
    expect(
      (devices.body as { profiles: { name: string }[] }).profiles.map((p) => p.name),
    ).toContain('h200');
  });

  it('lists presets and validates workloads with JSON paths (real workload package)', async () => {
    await t.close();
    t = await startTestServer({ workloads: workloadService() });
    const presets = await t.api('GET', '/api/presets', '/api/presets');
    expect((presets.body as { name: string }[]).map((p) => p.name)).toContain('overlap-blog');
    const good = await t.api(
      'POST',
      '/api/workloads/validate',
      '/api/workloads/validate',
      buildPreset('overlap-blog'),
    );
    expect(good.body).toEqual({ ok: true, errors: [] });
    const bad = await t.api('POST', '/api/workloads/validate', '/api/workloads/validate', {
      name: 'x',
      threads: 'no',
    });
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({ ok: false, errors: [{ path: '$.threads' }] });
    const unknownPreset = await post({ preset: 'nope' });
    expect(unknownPreset.status).toBe(422);
    expect(unknownPreset.body).toMatchObject({
      error: { code: 'invalid-preset', path: '$.preset' },
    });
    const badParam = await post({ preset: 'overlap-blog', params: { bogus: 1 } });
    expect(badParam.body).toMatchObject({ error: { code: 'invalid-preset', path: '$.params' } });
    const invalid = await post({ workload: { name: 'x', threads: [] } });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({
      error: { code: 'invalid-workload', path: '$.workload.threads' },
    });
  });

  it('titles a preset run with the parameters it ran with, the pitfall first', async () => {
    await t.close();
    t = await startTestServer({ workloads: workloadService() });
    const given = await post({
      preset: 'overlap-blog',
      params: { streams: 8, variant: 'depth-first' },
      backend: 'sim',
      target: 'test-device',
    });
    expect(given.status).toBe(202);
    const { id } = given.body as { id: string };
    const listed = (await t.api('GET', '/api/traces', '/api/traces')).body as {
      id: string;
      title: string;
      target?: string;
      reason: string;
    }[];
    expect(listed.find((e) => e.id === id)).toMatchObject({
      title: 'NVIDIA blog: overlap data transfers (variant depth-first, streams 8, size 16 MiB)',
      target: 'test-device',
      // Named backends need no explanation; only auto says why it chose.
      reason: '',
    });
    // The stored trace carries the same title, so the trace view names the run as the list does.
    const run = await t.backends.sim.nextRun();
    run.addOps(3);
    run.finish();
    await waitForStatus(id, 'finished');
    const data = await fetch(`${t.base}/api/traces/${id}/data`);
    expect(loadTrace(new Uint8Array(await data.arrayBuffer())).meta.title).toBe(
      'NVIDIA blog: overlap data transfers (variant depth-first, streams 8, size 16 MiB)',
    );
  });

  it('answers every kind of bad run request with a precise error', async () => {
    const cases: [unknown, number, string, string | undefined][] = [
      [[1, 2], 400, 'bad-request', '$'],
      [{ workload: { name: 'w' }, colour: 'red' }, 400, 'bad-request', '$.colour'],
      [{}, 400, 'bad-request', '$'],
      [{ workload: { name: 'w' }, preset: 'demo' }, 400, 'bad-request', '$'],
      [{ workload: { name: 'w' }, backend: 'tpu' }, 400, 'bad-request', '$.backend'],
      [{ workload: { name: 'w' }, pace: 'slow' }, 400, 'bad-request', '$.pace'],
      [{ workload: { name: 'w' }, slowdown: 0.5 }, 400, 'bad-request', '$.slowdown'],
      [{ workload: { name: 'w' }, slowdown: 1001 }, 400, 'bad-request', '$.slowdown'],
      [{ workload: { name: 'w' }, slowdown: '10' }, 400, 'bad-request', '$.slowdown'],
      [{ workload: { name: 'w' }, pace: 'fast', slowdown: 10 }, 400, 'bad-request', '$.slowdown'],
      [{ workload: { name: 'w' }, timeLimitMs: 0 }, 400, 'bad-request', '$.timeLimitMs'],
      [{ workload: { name: 'w' }, timeLimitMs: 1e9 }, 400, 'bad-request', '$.timeLimitMs'],
      [{ workload: { name: 'w' }, target: '' }, 400, 'bad-request', '$.target'],
      [{ workload: { name: 'w' }, params: {} }, 400, 'bad-request', '$.params'],
      [{ workload: { name: 'w' }, backend: 'cuda' }, 422, 'backend-unavailable', '$.backend'],
      [{ workload: { name: 'w' }, target: 'gtx480' }, 422, 'bad-target', '$.target'],
      [{ backend: 'replay' }, 400, 'bad-request', '$.replayOf'],
      [{ backend: 'replay', replayOf: 'missing' }, 422, 'not-found', '$.replayOf'],
      [{ workload: { nom: 1 } }, 422, 'invalid-workload', '$.workload.name'],
    ];
    for (const [body, status, code, path] of cases) {
      const response = await post(body);
      expect({ body, status: response.status }).toEqual({ body, status });
      expect(response.body).toEqual({
        error: expect.objectContaining({
          code,
          ...(path === undefined ? {} : { path }),
        }) as unknown,
      });
    }
    const notJson = await t.api('POST', '/api/runs', '/api/runs', '{"workload": ');
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ error: { code: 'invalid-json', path: '$' } });
    const wrongType = await fetch(`${t.base}/api/runs`, {
      method: 'POST',
      body: 'workload=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    const huge = await t.api('POST', '/api/runs', '/api/runs', {
      workload: { name: 'x'.repeat(2 << 20) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: { code: 'too-large' } });
  });

  it('fails a run its backend refuses, with the reason', async () => {
    const { body } = await post({ workload: { name: 'w', refuse: 'stream s9 does not exist' } });
    const failed = await waitForStatus((body as Entry).id, 'failed');
    expect(failed.reason).toBe('stream s9 does not exist');
  });

  it('queues runs beyond the concurrency cap, shows positions and cancels a queued run', async () => {
    await t.close();
    t = await startTestServer({ limits: { concurrentRuns: 1 } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await post({ workload: { name: `w${i}` } });
      expect(response.status).toBe(202);
      ids.push((response.body as Entry).id);
      expect((response.body as Entry).position).toBe(Math.max(0, i - 1));
    }
    const first = await t.backends.sim.nextRun();
    expect((await entry(ids[0]!)).status).toBe('running');
    expect(await entry(ids[1]!)).toMatchObject({ status: 'queued', position: 0 });
    expect(await entry(ids[2]!)).toMatchObject({ status: 'queued', position: 1 });
    const cancelled = await t.api('POST', `/api/runs/${ids[1]!}/cancel`, '/api/runs/{id}/cancel');
    expect(cancelled.body).toEqual({ id: ids[1], status: 'cancelled' });
    expect(await entry(ids[2]!)).toMatchObject({ status: 'queued', position: 0 });
    first.finish();
    const third = await t.backends.sim.nextRun();
    expect(await waitForStatus(ids[2]!, 'running')).toMatchObject({ status: 'running' });
    third.finish();
    await waitForStatus(ids[2]!, 'finished');
    const again = await t.api('POST', `/api/runs/${ids[1]!}/cancel`, '/api/runs/{id}/cancel');
    expect(again.status).toBe(409);
    const missing = await t.api('POST', '/api/runs/nosuch/cancel', '/api/runs/{id}/cancel');
    expect(missing.status).toBe(404);
    const noData = await t.api('GET', `/api/traces/${ids[1]!}/data`, '/api/traces/{id}/data');
    expect(noData.body).toMatchObject({ error: { code: 'no-data' } });
  });

  it('refuses new runs with 429 when the queue is full', async () => {
    await t.close();
    t = await startTestServer({ limits: { concurrentRuns: 1, maxQueuedRuns: 2 } });
    for (let i = 0; i < 3; i++) {
      expect((await post({ workload: { name: `w${i}` } })).status).toBe(202);
    }
    await t.backends.sim.nextRun();
    const refused = await post({ workload: { name: 'one too many' } });
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'queue-full' } } });
  });

  it('stops a run past its time limit with the watchdog and says why', async () => {
    const { body } = await post({ workload: { name: 'w', ignoreCancel: true }, timeLimitMs: 20 });
    const run = await t.backends.sim.nextRun();
    run.addOps(5);
    const failed = await waitForStatus((body as Entry).id, 'failed');
    expect(run.cancelled).toBe(true);
    expect(failed.reason).toMatch(/exceeded its time limit of 20 ms/);
  });

  it('lists, fetches, windows and deletes traces', async () => {
    const { body } = await post({ workload: { name: 'w' } });
    const id = (body as Entry).id;
    const run = await t.backends.sim.nextRun();
    run.addOps(300);
    const busy = await t.api('DELETE', `/api/traces/${id}`, '/api/traces/{id}');
    expect(busy.status).toBe(409);
    // A running run's data is a snapshot of what it has so far.
    const snapshot = await fetch(`${t.base}/api/traces/${id}/data`);
    expect(loadTrace(new Uint8Array(await snapshot.arrayBuffer())).ops.count).toBe(300);
    run.finish();
    await waitForStatus(id, 'finished');
    const list = await t.api('GET', '/api/traces', '/api/traces');
    expect((list.body as Entry[]).map((e) => e.id)).toEqual([id]);

    // Ops are 1000 ns long, 400 ns apart, round-robin over tracks 0..2: op k starts at 400k.
    const windowed = await fetch(`${t.base}/api/traces/${id}/data?fromNs=4000&toNs=8000&tracks=1`);
    const sub = loadTrace(new Uint8Array(await windowed.arrayBuffer()));
    const ops = sub.ops.columns();
    expect(sub.tracks).toHaveLength(3);
    expect([...ops.track]).toEqual(Array(ops.count).fill(1));
    const whole = run.trace.ops.columns();
    const expected = [...Array(whole.count).keys()].filter(
      (i) => whole.track[i] === 1 && whole.endNs[i]! >= 4000 && whole.startNs[i]! <= 8000,
    );
    expect([...ops.startNs]).toEqual(expected.map((i) => whole.startNs[i]));

    for (const [query, path] of [
      ['fromNs=abc', 'fromNs'],
      ['fromNs=10&toNs=5', 'fromNs'],
      ['tracks=1,x', 'tracks'],
      ['tracks=7', 'tracks'],
      ['fromNs=1&fromNs=2', 'fromNs'],
    ] as const) {
      const bad = await t.api('GET', `/api/traces/${id}/data?${query}`, '/api/traces/{id}/data');
      expect({
        query,
        status: bad.status,
        path: (bad.body as { error: { path: string } }).error.path,
      }).toEqual({ query, status: 400, path });
    }
    const deleted = await t.api('DELETE', `/api/traces/${id}`, '/api/traces/{id}');
    expect(deleted.status).toBe(204);
    expect((await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}')).status).toBe(404);
    expect((await t.api('GET', '/api/traces/bad.id', '/api/traces/{id}')).body).toMatchObject({
      error: { code: 'bad-id' },
    });
  });

  it('answers unknown API routes and unavailable tools with JSON errors', async () => {
    const unknown = await fetch(`${t.base}/api/nothing`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { code: 'not-found', message: 'no API route GET /api/nothing' },
    });
    const upload = await fetch(`${t.base}/api/imports?filename=a.sstrace`, {
      method: 'PUT',
      body: saveTrace(new Trace({ title: 'empty' })),
    });
    const id = ((await upload.json()) as Entry).id;
    const analysis = await t.api('GET', `/api/traces/${id}/analysis`, '/api/traces/{id}/analysis');
    expect(analysis.status).toBe(501);
    const exported = await t.api(
      'GET',
      `/api/traces/${id}/export?format=chrome`,
      '/api/traces/{id}/export',
    );
    expect(exported.status).toBe(501);
    const badFormat = await t.api(
      'GET',
      `/api/traces/${id}/export?format=svg`,
      '/api/traces/{id}/export',
    );
    expect(badFormat.body).toMatchObject({ error: { code: 'bad-request', path: 'format' } });
  });

  /** A server with `tools` and the id of a finished simulator run of 60 ops on it. */
  async function finishedRunOn(tools: ReturnType<typeof traceTools>): Promise<string> {
    await t.close();
    t = await startTestServer({ tools });
    const { body } = await post({ workload: { name: 'w' } });
    const id = (body as Entry).id;
    const run = await t.backends.sim.nextRun();
    run.addOps(60);
    run.finish();
    await waitForStatus(id, 'finished');
    return id;
  }

  it('analyzes a stored trace, whole or in a window', async () => {
    const id = await finishedRunOn(traceTools());
    const whole = await t.api('GET', `/api/traces/${id}/analysis`, '/api/traces/{id}/analysis');
    expect(whole.status).toBe(200);
    expect(whole.body).toHaveProperty('metrics');
    const windowed = await t.api(
      'GET',
      `/api/traces/${id}/analysis?fromNs=0&toNs=5000`,
      '/api/traces/{id}/analysis',
    );
    expect(windowed.status).toBe(200);
  });

  it("refuses an analysis the machine's memory cannot hold, naming why, and goes on serving", async () => {
    // A machine of 1 kB: the 60-op trace's analysis (130 bytes an op) does not fit.
    const id = await finishedRunOn(traceTools(new ServerWorkers(sharedWorkers().pool, 1000)));
    const refused = await t.api('GET', `/api/traces/${id}/analysis`, '/api/traces/{id}/analysis');
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ error: { code: 'too-large-for-memory' } });
    expect(JSON.stringify(refused.body)).toMatch(
      /the analysis of this trace needs about \d+ kB of memory \(\d+ ops at 130 bytes an op\), more than the 1 kB this machine has/,
    );
    const trace = await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}');
    expect(trace.status).toBe(200);
  });

  it('serves the web app fallback and never a stack trace', async () => {
    const page = await fetch(`${t.base}/runs/123`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('web app is not built');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  });
});
