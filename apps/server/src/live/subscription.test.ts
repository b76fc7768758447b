import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Outgoing, SubscriptionSource } from './feed.ts';
import { RunLog } from './run-log.ts';
import { Subscription } from './subscription.ts';

/** A socket whose buffer drains only when the test says so. */
class FakeSocket {
  bufferedAmount = 0;
  readyState: number = WebSocket.OPEN;
  terminated = false;
  readonly sent: (Buffer | string)[] = [];
  private readonly pending: { bytes: number; callback: (error?: Error | null) => void }[] = [];

  send(data: Buffer | string, _options: unknown, callback: (error?: Error | null) => void): void {
    this.sent.push(data);
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    this.bufferedAmount += bytes;
    this.pending.push({ bytes, callback });
  }

  terminate(): void {
    this.terminated = true;
    this.readyState = WebSocket.CLOSED;
  }

  /** The peer reads everything buffered: callbacks run as the kernel takes the bytes. */
  drain(): void {
    for (const { bytes, callback } of this.pending.splice(0)) {
      this.bufferedAmount -= bytes;
      callback(null);
    }
  }
}

async function subscribe(
  socket: FakeSocket,
  log: RunLog,
  highWaterBytes: number,
): Promise<{ waits: number; done: boolean }> {
  return subscribeTo(socket, await log.feed().open(0), highWaterBytes);
}

function subscribeTo(
  socket: FakeSocket,
  source: SubscriptionSource,
  highWaterBytes: number,
): { waits: number; done: boolean } {
  const state = { waits: 0, done: false };
  const subscription = new Subscription(
    socket as unknown as WebSocket,
    source,
    highWaterBytes,
    () => {
      state.done = true;
    },
    () => state.waits++,
  );
  subscription.pump();
  return state;
}

/** A stored run's stand-in: 1000-byte frames read on demand; counts reads and closes. */
class OnDemandSource implements SubscriptionSource {
  reads = 0;
  closed = false;
  ended = false;
  heldBytes = 0;
  openFiles = 1;
  private pending: (() => void)[] = [];

  constructor(private readonly frames: number) {}

  next(): Promise<Outgoing | undefined> {
    if (this.reads >= this.frames) {
      this.ended = true;
      return Promise.resolve(undefined);
    }
    this.reads++;
    this.heldBytes = 1000;
    // Resolves when the test lets the "disk" answer.
    return new Promise((resolve) =>
      this.pending.push(() => {
        this.heldBytes = 0;
        resolve({ data: Buffer.alloc(1000), binary: true });
      }),
    );
  }

  /** Completes every read in flight and lets the promise callbacks run. */
  async answer(): Promise<void> {
    for (const done of this.pending.splice(0)) {
      done();
    }
    await new Promise((resolve) => setImmediate(resolve));
  }

  onAppend(): () => void {
    return () => undefined;
  }

  close(): void {
    this.closed = true;
    this.openFiles = 0;
  }
}

describe('Subscription', () => {
  it('stops sending at the high-water mark and resumes as the socket drains, dropping nothing', async () => {
    const log = new RunLog('run1', 'running');
    const socket = new FakeSocket();
    const state = await subscribe(socket, log, 4096);
    for (let i = 0; i < 100; i++) {
      log.appendFrame(new Uint8Array(1000).fill(i));
    }
    // 1000-byte batches plus a 14-byte header: the fifth frame crosses 4096 bytes.
    expect(socket.sent).toHaveLength(5);
    expect(socket.bufferedAmount).toBeLessThanOrEqual(4096 + 1014);
    expect(state.waits).toBeGreaterThan(0);
    while (socket.sent.length < 100) {
      socket.drain();
      expect(socket.bufferedAmount).toBeLessThanOrEqual(4096 + 1014);
    }
    const seqs = socket.sent.map((frame) => (frame as Buffer).readUInt32LE(4));
    expect(seqs).toEqual(seqs.map((_, i) => i));
    log.close();
    socket.drain();
    expect(state.done).toBe(true);
  });

  it('sends control messages in order between frames', async () => {
    const log = new RunLog('run2', 'queued');
    const socket = new FakeSocket();
    await subscribe(socket, log, 1 << 20);
    log.appendControl({ type: 'started', runId: 'run2', backend: 'sim' });
    log.appendFrame(new Uint8Array([1, 2, 3]));
    log.appendControl({ type: 'cancelled', runId: 'run2', frameCount: 1 });
    expect(
      socket.sent.map((d) =>
        typeof d === 'string' ? (JSON.parse(d) as { type: string }).type : 'frame',
      ),
    ).toEqual(['started', 'frame', 'cancelled']);
  });

  it('reads the next frame of a stored run only once the socket has room for it', async () => {
    const socket = new FakeSocket();
    const source = new OnDemandSource(100);
    const state = subscribeTo(socket, source, 4096);
    // One read at a time; after five frames (5000 bytes ≥ 4096) no more is read.
    for (let i = 1; i <= 5; i++) {
      expect(source.reads).toBe(i);
      await source.answer();
    }
    expect(socket.sent).toHaveLength(5);
    expect(source.reads).toBe(5);
    expect(state.waits).toBeGreaterThan(0);
    socket.drain();
    await source.answer();
    expect(source.reads).toBeGreaterThan(5);
    expect(socket.bufferedAmount).toBeLessThanOrEqual(4096 + 1000);
    while (!state.done) {
      socket.drain();
      await source.answer();
    }
    expect(socket.sent).toHaveLength(100);
    expect(source.closed).toBe(true);
  });

  it('lets go of its source and its unsent frames when the client closes without reading', async () => {
    const socket = new FakeSocket();
    const source = new OnDemandSource(100);
    const state = subscribeTo(socket, source, 4096);
    for (let i = 0; i < 5; i++) {
      await source.answer();
    }
    expect(socket.bufferedAmount).toBeGreaterThan(0);
    socket.readyState = WebSocket.CLOSING; // the client's close frame arrived
    await new Promise((resolve) => setTimeout(resolve, 60)); // the drain backstop notices it
    expect(state.done).toBe(true);
    expect(source.closed).toBe(true);
    expect(socket.terminated).toBe(true);
    expect(source.reads).toBe(5);
  });

  it('starts a resumed subscriber right after the frame before fromSeq', () => {
    const log = new RunLog('run3', 'running');
    log.appendControl({ type: 'started', runId: 'run3', backend: 'sim' });
    log.appendFrame(new Uint8Array([1]));
    log.appendControl({ type: 'progress', runId: 'run3', opCount: 1, spanNs: 1, elapsedMs: 1 });
    log.appendFrame(new Uint8Array([2]));
    expect(log.cursorFor(0)).toBe(0);
    expect(log.cursorFor(1)).toBe(2);
    expect(log.cursorFor(2)).toBe(4);
  });
});
