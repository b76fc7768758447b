import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { RunLog } from './run-log.ts';
import { Subscription } from './subscription.ts';

/** A socket whose buffer drains only when the test says so. */
class FakeSocket {
  bufferedAmount = 0;
  readonly sent: (Buffer | string)[] = [];
  private readonly pending: { bytes: number; callback: (error?: Error | null) => void }[] = [];

  send(data: Buffer | string, _options: unknown, callback: (error?: Error | null) => void): void {
    this.sent.push(data);
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    this.bufferedAmount += bytes;
    this.pending.push({ bytes, callback });
  }

  /** The peer reads everything buffered: callbacks run as the kernel takes the bytes. */
  drain(): void {
    for (const { bytes, callback } of this.pending.splice(0)) {
      this.bufferedAmount -= bytes;
      callback(null);
    }
  }
}

function subscribe(
  socket: FakeSocket,
  log: RunLog,
  highWaterBytes: number,
): { waits: number; done: boolean } {
  const state = { waits: 0, done: false };
  const subscription = new Subscription(
    socket as unknown as WebSocket,
    log,
    0,
    highWaterBytes,
    () => {
      state.done = true;
    },
    () => state.waits++,
  );
  subscription.pump();
  return state;
}

describe('Subscription', () => {
  it('stops sending at the high-water mark and resumes as the socket drains, dropping nothing', () => {
    const log = new RunLog('run1', 'running');
    const socket = new FakeSocket();
    const state = subscribe(socket, log, 4096);
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

  it('sends control messages in order between frames', () => {
    const log = new RunLog('run2', 'queued');
    const socket = new FakeSocket();
    subscribe(socket, log, 1 << 20);
    log.appendControl({ type: 'started', runId: 'run2', backend: 'sim' });
    log.appendFrame(new Uint8Array([1, 2, 3]));
    log.appendControl({ type: 'cancelled', runId: 'run2', frameCount: 1 });
    expect(
      socket.sent.map((d) =>
        typeof d === 'string' ? (JSON.parse(d) as { type: string }).type : 'frame',
      ),
    ).toEqual(['started', 'frame', 'cancelled']);
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
