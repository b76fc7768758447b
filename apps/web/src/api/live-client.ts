import { beginActivity, touchActivity } from '../test-mode/activity.ts';
import type { JsonObject } from './guards.ts';
import { isObject } from './guards.ts';
import { parseLiveFrame } from './live-frame.ts';

export type LiveControlType =
  'queued' | 'started' | 'progress' | 'finished' | 'failed' | 'cancelled';

export interface LiveControl {
  readonly type: LiveControlType;
  readonly runId: string;
  readonly message: JsonObject;
}

export interface LiveHandlers {
  /** Codec batches in sequence order; apply them to the run's TraceDecoder. */
  onBatches: (batches: Uint8Array, seq: number) => void;
  onControl: (control: LiveControl) => void;
  /** A frame or message that could not be used; the subscription goes on. */
  onError: (message: string) => void;
}

const controlTypes = new Set<string>([
  'queued',
  'started',
  'progress',
  'finished',
  'failed',
  'cancelled',
]);
const finalTypes = new Set<string>(['finished', 'failed', 'cancelled']);

function liveUrl(): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/api/live`;
}

/**
 * Follows one run on ws /api/live. On a dropped socket it reconnects and resubscribes from the
 * last sequence it applied plus one, so no batch is lost or applied twice.
 */
export class LiveSubscription {
  private socket: WebSocket | null = null;
  private lastSeq = -1;
  private closed = false;
  private retryDelayMs = 250;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** Counts as pending work (for the idle signal) while the run has not ended. */
  private endActivity: (() => void) | null = null;

  constructor(
    readonly runId: string,
    private readonly handlers: LiveHandlers,
  ) {
    this.endActivity = beginActivity();
    this.connect();
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) {
      clearTimeout(this.retryTimer);
    }
    this.socket?.close();
    this.socket = null;
    this.finishActivity();
  }

  private finishActivity(): void {
    this.endActivity?.();
    this.endActivity = null;
  }

  private connect(): void {
    const socket = new WebSocket(liveUrl());
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      this.retryDelayMs = 250;
      const subscribe: Record<string, unknown> = { type: 'subscribe', runId: this.runId };
      if (this.lastSeq >= 0) {
        subscribe['fromSeq'] = this.lastSeq + 1;
      }
      socket.send(JSON.stringify(subscribe));
    };
    socket.onmessage = (event: MessageEvent<unknown>) => {
      touchActivity();
      if (event.data instanceof ArrayBuffer) {
        this.handleFrame(event.data);
      } else if (typeof event.data === 'string') {
        this.handleText(event.data);
      }
    };
    socket.onclose = () => {
      if (this.closed || this.socket !== socket) {
        return;
      }
      this.socket = null;
      this.retryTimer = setTimeout(() => this.connect(), this.retryDelayMs);
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, 4000);
    };
  }

  private handleFrame(buffer: ArrayBuffer): void {
    try {
      const frame = parseLiveFrame(buffer);
      if (frame.runId !== this.runId || frame.seq <= this.lastSeq) {
        return;
      }
      this.lastSeq = frame.seq;
      this.handlers.onBatches(frame.batches, frame.seq);
    } catch (error) {
      this.handlers.onError(error instanceof Error ? error.message : String(error));
    }
  }

  private handleText(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text) as unknown;
    } catch {
      this.handlers.onError('the live channel sent a message that is not JSON');
      return;
    }
    if (!isObject(message)) {
      return;
    }
    const type = message['type'];
    if (type === 'error') {
      const e = message['error'];
      const text2 =
        isObject(e) && typeof e['message'] === 'string' ? e['message'] : 'live channel error';
      this.handlers.onError(typeof message['message'] === 'string' ? message['message'] : text2);
      return;
    }
    if (typeof type !== 'string' || !controlTypes.has(type)) {
      return;
    }
    if (message['runId'] !== undefined && message['runId'] !== this.runId) {
      return;
    }
    this.handlers.onControl({ type: type as LiveControlType, runId: this.runId, message });
    if (finalTypes.has(type)) {
      // No reconnects after the end; the socket stays open for batches still in flight and is
      // closed by close() when the view goes away.
      this.closed = true;
      this.finishActivity();
    }
  }
}
