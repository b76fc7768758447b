import type { Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { kernelRunTrace, saveTrace } from '@streamscope/trace';
import { LiveClient } from '../test-support/live-client.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { batchFrameEnds } from './stored-run.ts';

const highWaterBytes = 64 * 1024;
let t: TestServer | undefined;
let big: Uint8Array;

beforeAll(() => {
  // About 10 MB, more than loopback's socket buffers take: a client that never reads leaves
  // the server with frames to hold back.
  big = saveTrace(kernelRunTrace(1_000_000));
});

afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function storedTrace(file: Uint8Array): Promise<string> {
  t = await startTestServer({
    limits: { liveHighWaterBytes: highWaterBytes, uploadBytes: 64 << 20 },
  });
  const response = await fetch(`${t.base}/api/imports?filename=stored.sstrace`, {
    method: 'PUT',
    body: file,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** Polls the server's live stats until `done` holds (bounded by the test timeout). */
async function until(done: (stats: ReturnType<TestServer['server']['liveStats']>) => boolean) {
  for (;;) {
    const stats = t!.server.liveStats();
    if (done(stats)) {
      return stats;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

// Each test uploads and streams megabytes: more than the default 5 s on a busy 2-core machine.
describe('subscribers to a stored run', { timeout: 30_000 }, () => {
  it('get every frame of it read from disk, and resume at any frame', async () => {
    const id = await storedTrace(saveTrace(kernelRunTrace(200_000)));
    const first = await LiveClient.connect(t!.liveUrl);
    first.send({ type: 'subscribe', runId: id });
    await first.until((c) => c.seqs.length >= 2);
    await first.close();
    const second = await LiveClient.connect(t!.liveUrl, { decoder: first.decoder });
    second.send({ type: 'subscribe', runId: id, fromSeq: first.seqs.length });
    await second.until((c) => c.ended);
    const seqs = [...first.seqs, ...second.seqs];
    expect(seqs).toEqual(seqs.map((_, i) => i));
    // Never streamed, so made up of whole batches (at most 32768 ops each): several frames.
    expect(seqs.length).toBeGreaterThan(4);
    expect(second.seqs.length).toBeGreaterThan(0);
    expect(second.trace.ops.count).toBe(200_000);
    await second.close();
  });

  it('that never read hold one frame and a socket buffer each, and nothing once they close', async () => {
    const id = await storedTrace(big);
    const ends = await batchFrameEnds(t!.server.store.tracePath(id));
    const largestFrameBytes = Math.max(...ends.map((end, i) => end - (i === 0 ? 0 : ends[i - 1]!)));
    const clients = await Promise.all(
      Array.from({ length: 16 }, () => LiveClient.connect(t!.liveUrl)),
    );
    for (const client of clients) {
      client.socket.pause(); // never reads a byte
      client.send({ type: 'subscribe', runId: id });
    }
    const throttled = await until((s) => s.subscriptions === 16 && s.throttled === 16);
    // Per subscriber: the socket's buffer up to the high-water mark plus the frame that crossed
    // it (with its header), or a frame being read; never the run (10 MB), as when each one
    // rebuilt the whole run in memory.
    const perSubscriberBytes = highWaterBytes + largestFrameBytes + 64;
    expect(perSubscriberBytes).toBeLessThan(big.length / 10);
    expect(throttled.heldBytes).toBeLessThanOrEqual(16 * perSubscriberBytes);
    expect(throttled.openFiles).toBe(16);

    // Half go away at once, half send a close frame and still never read.
    clients.slice(0, 8).forEach((c) => c.socket.terminate());
    clients.slice(8).forEach((c) => c.socket.close());
    const after = await until((s) => s.clients === 0);
    expect(after).toMatchObject({ subscriptions: 0, heldBytes: 0, openFiles: 0 });
    clients.forEach((c) => c.socket.terminate());
  });

  it('holds a burst of subscribes to the per-socket limit, though none has opened its run yet', async () => {
    t = await startTestServer({ limits: { maxSubscriptionsPerSocket: 4 } });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${t.base}/api/imports?filename=run-${i}.sstrace`, {
        method: 'PUT',
        body: saveTrace(kernelRunTrace(10)),
      });
      ids.push(((await response.json()) as { id: string }).id);
    }
    const socket = new WebSocket(t.liveUrl);
    await new Promise((resolve) => socket.once('open', resolve));
    const replies: { type: string; code?: string }[] = [];
    socket.on('message', (data, isBinary) => {
      if (!isBinary) {
        replies.push(JSON.parse((data as Buffer).toString('utf8')) as { type: string });
      }
    });
    // All six in one TCP write: the server reads them in one go, before any run is open.
    const tcp = (socket as unknown as { _socket: Socket })._socket;
    tcp.cork();
    for (const runId of ids) {
      socket.send(JSON.stringify({ type: 'subscribe', runId }));
    }
    tcp.uncork();
    while (replies.length < 6) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(replies.filter((r) => r.type === 'subscribed')).toHaveLength(4);
    expect(replies.filter((r) => r.code === 'too-many-subscriptions')).toHaveLength(2);
    socket.terminate();
  });
});
