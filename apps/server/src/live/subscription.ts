import type { WebSocket } from 'ws';
import type { RunLog } from './run-log.ts';

/**
 * Streams one run's log to one socket from a cursor. A slow client is throttled by its socket's
 * buffered amount: nothing is dropped, and at most about `highWaterBytes` (plus one frame) waits
 * in this socket's buffer; the rest stays in the shared log.
 */
export class Subscription {
  private waiting = false;
  private stopped = false;
  private readonly detach: () => void;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: WebSocket,
    readonly log: RunLog,
    private cursor: number,
    private readonly highWaterBytes: number,
    private readonly onDone: (subscription: Subscription) => void,
    private readonly onWait: () => void,
  ) {
    this.detach = log.onAppend(() => this.pump());
  }

  /** Sends what it can now; the rest follows as the socket drains. */
  pump(): void {
    const entries = this.log.entries;
    while (!this.stopped && this.cursor < entries.length) {
      if (this.socket.bufferedAmount >= this.highWaterBytes) {
        this.wait();
        return;
      }
      const entry = entries[this.cursor++]!;
      this.socket.send(entry.data, { binary: entry.kind === 'frame' }, this.afterSend);
    }
    if (!this.stopped && this.log.closed && this.cursor >= entries.length) {
      this.stop();
    }
  }

  private readonly afterSend = (error?: Error | null): void => {
    if (error !== undefined && error !== null) {
      this.stop();
    } else if (this.waiting) {
      this.waiting = false;
      this.pump();
    }
  };

  private wait(): void {
    this.waiting = true;
    this.onWait();
    // The callback of a buffered send resumes the pump; this timer is a backstop in case the
    // socket drained before the callbacks ran.
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.waiting) {
        this.waiting = false;
        this.pump();
      }
    }, 50);
    this.retryTimer.unref();
  }

  stop(): void {
    if (this.stopped) {
      return;
    }
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.detach();
    this.onDone(this);
  }
}
