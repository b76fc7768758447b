import { WebSocket } from 'ws';
import type { Outgoing, SubscriptionSource } from './feed.ts';

/**
 * Streams one run to one socket from its source. A slow client is throttled by its socket's
 * buffered amount: nothing is dropped, at most about `highWaterBytes` (plus one frame) waits in
 * this socket's buffer, and the source is asked for more only as the socket drains (a stored
 * run then reads its next frame from disk). A socket that starts closing reads no more: the
 * subscription stops and lets go of its source at once.
 */
export class Subscription {
  private waiting = false;
  private reading = false;
  private stopped = false;
  private readonly detach: () => void;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: WebSocket,
    readonly source: SubscriptionSource,
    private readonly highWaterBytes: number,
    private readonly onDone: (subscription: Subscription) => void,
    private readonly onWait: () => void,
  ) {
    this.detach = source.onAppend(() => this.pump());
  }

  /** Waiting for the socket to drain below the high-water mark. */
  get isWaiting(): boolean {
    return this.waiting;
  }

  /** Sends what it can now; the rest follows as the socket drains. */
  pump(): void {
    while (!this.stopped && !this.reading) {
      if (this.socket.readyState !== WebSocket.OPEN) {
        this.closing();
        return;
      }
      if (this.socket.bufferedAmount >= this.highWaterBytes) {
        this.wait();
        return;
      }
      const next = this.source.next();
      if (next instanceof Promise) {
        this.reading = true;
        next.then(
          (message) => {
            this.reading = false;
            if (message === undefined) {
              this.finishIfEnded();
            } else {
              this.send(message);
              this.pump();
            }
          },
          () => {
            this.reading = false;
            this.stop();
          },
        );
        return;
      }
      if (next === undefined) {
        // Nothing more now: a live run's next append pumps again.
        this.finishIfEnded();
        return;
      }
      this.send(next);
    }
  }

  private finishIfEnded(): void {
    if (!this.stopped && this.source.ended) {
      this.stop();
    }
  }

  private send(message: Outgoing): void {
    if (!this.stopped && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(message.data, { binary: message.binary }, this.afterSend);
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
    // socket drained before the callbacks ran, and it notices a socket that started closing.
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.waiting) {
        this.waiting = false;
        this.pump();
      }
    }, 50);
    this.retryTimer.unref();
  }

  /**
   * The client closed (or the server is closing) while frames wait unsent: the client will not
   * read them, so the socket goes now rather than holding them until ws's close timeout.
   */
  private closing(): void {
    if (this.socket.readyState === WebSocket.CLOSING && this.socket.bufferedAmount > 0) {
      this.socket.terminate();
    }
    this.stop();
  }

  stop(): void {
    if (this.stopped) {
      return;
    }
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.detach();
    this.source.close();
    this.onDone(this);
  }
}
