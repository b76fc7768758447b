import type { Outgoing, RunFeed, SubscriptionSource } from './feed.ts';
import type { ServerMessage } from './protocol.ts';
import { encodeLiveFrame } from './protocol.ts';

/** One thing a subscriber receives, in order: a binary frame or a JSON control message. */
export type LogEntry =
  | {
      readonly kind: 'frame';
      readonly seq: number;
      readonly data: Buffer;
      readonly batchBytes: number;
    }
  | { readonly kind: 'control'; readonly message: ServerMessage; readonly data: string };

/**
 * Everything a run has sent, in order, shared by all its subscribers: frames are built once and
 * each subscriber keeps only a cursor. Its memory is about the size of the trace itself, and it
 * is dropped when the run has ended and its last slow subscriber has caught up (the stored
 * file then serves resumes).
 */
export class RunLog {
  readonly entries: LogEntry[] = [];
  /** Byte offsets where each frame's batches end in the concatenated record stream. */
  readonly frameEnds: number[] = [];
  private streamBytes = 0;
  private ended = false;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly runId: string,
    public status: string,
  ) {}

  get frameCount(): number {
    return this.frameEnds.length;
  }

  get closed(): boolean {
    return this.ended;
  }

  appendFrame(batches: Uint8Array): void {
    if (this.ended || batches.length === 0) {
      return;
    }
    const seq = this.frameEnds.length;
    this.streamBytes += batches.length;
    this.frameEnds.push(this.streamBytes);
    this.entries.push({
      kind: 'frame',
      seq,
      data: encodeLiveFrame(this.runId, seq, batches),
      batchBytes: batches.length,
    });
    this.notify();
  }

  appendControl(message: ServerMessage): void {
    if (this.ended) {
      return;
    }
    this.entries.push({ kind: 'control', message, data: JSON.stringify(message) });
    this.notify();
  }

  /** No more entries will come. */
  close(): void {
    this.ended = true;
    this.notify();
  }

  /** The record stream so far: every frame's batches, concatenated (the stored file). */
  recordStream(): Uint8Array {
    const out = new Uint8Array(this.streamBytes);
    let at = 0;
    for (const entry of this.entries) {
      if (entry.kind === 'frame') {
        out.set(entry.data.subarray(entry.data.length - entry.batchBytes), at);
        at += entry.batchBytes;
      }
    }
    return out;
  }

  /**
   * Where a subscriber resuming at `fromSeq` starts: right after frame fromSeq−1, so it gets every
   * frame from fromSeq on exactly once (control messages in between may repeat; they are idempotent).
   */
  cursorFor(fromSeq: number): number {
    if (fromSeq === 0) {
      return 0;
    }
    const index = this.entries.findIndex((e) => e.kind === 'frame' && e.seq === fromSeq - 1);
    return index + 1;
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of this.listeners) {
      listener();
    }
  }

  /** This log as a feed: each subscriber gets a cursor into the shared entries. */
  feed(): RunFeed {
    return {
      status: this.status,
      frameCount: this.frameCount,
      open: (fromSeq) => Promise.resolve(new LogCursor(this, this.cursorFor(fromSeq))),
    };
  }
}

/** One subscriber's place in a shared log: it holds nothing of its own. */
class LogCursor implements SubscriptionSource {
  readonly heldBytes = 0;
  readonly openFiles = 0;

  constructor(
    private readonly log: RunLog,
    private cursor: number,
  ) {}

  next(): Outgoing | undefined {
    const entry = this.log.entries[this.cursor];
    if (entry === undefined) {
      return undefined;
    }
    this.cursor++;
    return { data: entry.data, binary: entry.kind === 'frame' };
  }

  get ended(): boolean {
    return this.log.closed && this.cursor >= this.log.entries.length;
  }

  onAppend(listener: () => void): () => void {
    return this.log.onAppend(listener);
  }

  close(): void {
    // Nothing of its own to let go.
  }
}
