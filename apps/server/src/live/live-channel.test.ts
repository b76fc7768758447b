import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTrace } from '@streamscope/trace';
import type { Trace } from '@streamscope/trace';
import { checkLiveMessage } from '../test-support/openapi-check.ts';
import { LiveClient } from '../test-support/live-client.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';

let t: TestServer;

beforeEach(async () => {
  t = await startTestServer();
});

afterEach(async () => {
  await t.close();
});

async function startRun(workload: unknown = { name: 'w' }): Promise<string> {
  const response = await t.api('POST', '/api/runs', '/api/runs', { workload });
  expect(response.status).toBe(202);
  return (response.body as { id: string }).id;
}

/** Op columns as plain arrays, to compare two traces op by op. */
function opsOf(trace: Trace): number[][] {
  const ops = trace.ops.columns();
  const rows: number[][] = [];
  for (let i = 0; i < ops.count; i++) {
    rows.push([
      ops.startNs[i]!,
      ops.endNs[i]!,
      ops.track[i]!,
      ops.nameId[i]!,
      ops.correlationId[i]!,
    ]);
  }
  return rows;
}

describe('live channel', () => {
  it('streams a run from queued to finished, and the decoded trace equals the stored one', async () => {
    const client = await LiveClient.connect(t.liveUrl);
    const id = await startRun();
    client.send({ type: 'subscribe', runId: id });
    const run = await t.backends.sim.nextRun();
    run.addOps(100);
    await client.until((c) => c.trace.ops.count === 100);
    run.addOps(50);
    run.finish();
    const finished = await client.untilMessage('finished');
    expect(finished).toMatchObject({
      type: 'finished',
      runId: id,
      summary: { opCount: 150, trackCount: 3 },
    });
    await client.until((c) => c.ended);
    client.messages.forEach(checkLiveMessage);
    expect(client.messages.map((m) => m.type)).toContain('started');
    expect(client.seqs).toEqual(client.seqs.map((_, i) => i));

    const data = await fetch(`${t.base}/api/traces/${id}/data`);
    expect(data.headers.get('content-type')).toBe('application/octet-stream');
    const stored = loadTrace(new Uint8Array(await data.arrayBuffer()));
    expect(opsOf(client.trace)).toEqual(opsOf(stored));
    expect(opsOf(stored)).toEqual(opsOf(run.trace));
    await client.close();
  });

  it('resumes after a dropped socket with not one frame missing or repeated', async () => {
    const id = await startRun();
    const first = await LiveClient.connect(t.liveUrl);
    first.send({ type: 'subscribe', runId: id });
    const run = await t.backends.sim.nextRun();
    for (let step = 0; step < 5; step++) {
      run.addOps(20);
      await first.until((c) => c.trace.ops.count === 20 * (step + 1));
    }
    await first.close();
    // The run carries on while nobody watches.
    run.addOps(300);
    // Continue decoding into the same trace, as a reconnecting browser would.
    const second = await LiveClient.connect(t.liveUrl, { decoder: first.decoder });
    const nextSeq = first.seqs.length;
    second.send({ type: 'subscribe', runId: id, fromSeq: nextSeq });
    await second.until((c) => c.trace.ops.count === 400);
    run.addOps(100);
    run.finish();
    await second.until((c) => c.ended);
    const seqs = [...first.seqs, ...second.seqs];
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(opsOf(second.trace)).toEqual(opsOf(run.trace));
    await second.close();
  });

  it('resumes from the stored file after the run has ended', async () => {
    const id = await startRun();
    const first = await LiveClient.connect(t.liveUrl);
    first.send({ type: 'subscribe', runId: id });
    const run = await t.backends.sim.nextRun();
    run.addOps(10);
    await first.until((c) => c.trace.ops.count === 10);
    await first.close();
    run.addOps(10);
    run.addOps(10);
    run.finish();
    await waitForStatus(id, 'finished');
    const second = await LiveClient.connect(t.liveUrl, { decoder: first.decoder });
    second.send({ type: 'subscribe', runId: id, fromSeq: first.seqs.length });
    await second.untilMessage('finished');
    expect([...first.seqs, ...second.seqs]).toEqual(
      [...first.seqs, ...second.seqs].map((_, i) => i),
    );
    expect(opsOf(second.trace)).toEqual(opsOf(run.trace));
    expect(second.messages.at(-1)).toMatchObject({ type: 'finished', runId: id });
    await second.close();
  });

  it('lets many clients watch one run, each receiving every record', async () => {
    const id = await startRun();
    const clients = await Promise.all(
      Array.from({ length: 8 }, () => LiveClient.connect(t.liveUrl)),
    );
    clients.forEach((c) => c.send({ type: 'subscribe', runId: id }));
    await Promise.all(clients.map((c) => c.untilMessage('subscribed')));
    const run = await t.backends.sim.nextRun();
    for (let i = 0; i < 10; i++) {
      run.addOps(500);
    }
    run.finish();
    await Promise.all(clients.map((c) => c.until((x) => x.ended)));
    for (const client of clients) {
      expect(client.trace.ops.count).toBe(5000);
    }
    await Promise.all(clients.map((c) => c.close()));
  });

  it('gives a client that stopped reading for a while every record once it reads again', async () => {
    await t.close();
    t = await startTestServer({ limits: { liveHighWaterBytes: 64 * 1024 } });
    const id = await startRun();
    const client = await LiveClient.connect(t.liveUrl);
    client.send({ type: 'subscribe', runId: id });
    await client.untilMessage('subscribed');
    const run = await t.backends.sim.nextRun();
    client.socket.pause(); // stop reading: the server's socket buffer fills
    for (let i = 0; i < 50; i++) {
      run.addOps(2000);
      await new Promise((resolve) => setImmediate(resolve)); // one frame per step
    }
    run.finish();
    await waitForStatus(id, 'finished');
    client.socket.resume();
    await client.until((c) => c.ended);
    expect(client.trace.ops.count).toBe(100_000);
    expect(client.seqs).toEqual(client.seqs.map((_, i) => i));
    await client.close();
  });

  it('reports cancel to watchers and stores the partial trace', async () => {
    const id = await startRun();
    const client = await LiveClient.connect(t.liveUrl);
    client.send({ type: 'subscribe', runId: id });
    const run = await t.backends.sim.nextRun();
    run.addOps(30);
    const cancel = await t.api('POST', `/api/runs/${id}/cancel`, '/api/runs/{id}/cancel');
    expect(cancel).toEqual({ status: 202, body: { id, status: 'cancelling' } });
    await client.untilMessage('cancelled');
    expect(run.cancelled).toBe(true);
    expect(client.trace.ops.count).toBe(30);
    const entry = await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}');
    expect(entry.body).toMatchObject({ status: 'cancelled', opCount: 30 });
    await client.close();
  });

  it('answers bad messages with precise errors and keeps the socket open', async () => {
    const client = await LiveClient.connect(t.liveUrl);
    client.send('not json');
    client.send({ type: 'watch', runId: 'x' });
    client.send({ type: 'subscribe', runId: '../etc' });
    client.send({ type: 'subscribe', runId: 'abc', fromSeq: -1 });
    client.send({ type: 'subscribe', runId: 'nosuchrun' });
    await client.until((c) => c.messages.length === 5);
    expect(client.messages).toEqual([
      { type: 'error', code: 'bad-message', message: 'message is not JSON' },
      {
        type: 'error',
        code: 'bad-message',
        message: `$.type must be 'subscribe' or 'unsubscribe', got "watch"`,
      },
      {
        type: 'error',
        code: 'bad-message',
        message: '$.runId must be a run id (1 to 64 characters of [A-Za-z0-9_-])',
      },
      { type: 'error', code: 'bad-message', message: '$.fromSeq must be an integer in [0, 2^32)' },
      { type: 'error', code: 'not-found', message: "no run 'nosuchrun'", runId: 'nosuchrun' },
    ]);
    const id = await startRun();
    client.send({ type: 'subscribe', runId: id, fromSeq: 5 });
    await client.until((c) => c.messages.length === 6);
    expect(client.messages[5]).toMatchObject({ type: 'error', code: 'bad-seq' });
    client.messages.forEach(checkLiveMessage);
    await client.close();
  });

  it('closes a socket that sends an oversized message (1009) and keeps serving others', async () => {
    const client = await LiveClient.connect(t.liveUrl);
    const closed = new Promise<number>((resolve) =>
      client.socket.once('close', (code) => resolve(code)),
    );
    client.send('x'.repeat(64 * 1024));
    expect(await closed).toBe(1009);
    const other = await LiveClient.connect(t.liveUrl);
    other.send({ type: 'subscribe', runId: 'nosuchrun' });
    await other.untilMessage('error');
    await other.close();
  });

  it('refuses a socket from another origin', async () => {
    await expect(
      LiveClient.connect(t.liveUrl, { headers: { Origin: 'http://evil.example' } }),
    ).rejects.toThrow('HTTP 403');
    const ok = await LiveClient.connect(t.liveUrl, { headers: { Origin: t.base } });
    await ok.close();
  });
});

async function waitForStatus(id: string, status: string): Promise<void> {
  // Poll the API until the run reaches `status` (bounded by the test timeout).
  for (;;) {
    const entry = await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}');
    if ((entry.body as { status: string }).status === status) {
      return;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}
