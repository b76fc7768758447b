import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { batchHeaderBytes, batchMagic } from '@streamscope/trace';
import type { Outgoing, RunFeed, SubscriptionSource } from './feed.ts';
import type { ServerMessage } from './protocol.ts';
import { allocLiveFrame } from './protocol.ts';

/** Frames made up for a file that was never streamed (an import): batches up to about this size. */
export const storedFrameTargetBytes = 256 * 1024;

export interface StoredRun {
  readonly runId: string;
  readonly status: string;
  /** The trace file; absent when the run stored none. */
  readonly filePath?: string;
  /** Where each frame ends in the file (bytes), from its `.frames` file or from its batches. */
  readonly frameEnds: Float64Array;
  /** Sent after the last frame. */
  readonly final?: ServerMessage;
}

/**
 * A finished run's feed, read from its file as each subscriber's socket drains: a subscriber
 * holds one frame at a time and an open file, never the run, and lets both go when it stops.
 */
export function storedRunFeed(run: StoredRun): RunFeed {
  return {
    status: run.status,
    frameCount: run.frameEnds.length,
    async open(fromSeq) {
      const handle =
        run.filePath === undefined || fromSeq >= run.frameEnds.length
          ? undefined
          : await open(run.filePath, 'r');
      return new StoredRunReader(run, fromSeq, handle);
    },
  };
}

class StoredRunReader implements SubscriptionSource {
  private reading = 0;
  private finalSent = false;
  private done = false;

  constructor(
    private readonly run: StoredRun,
    private seq: number,
    private handle: FileHandle | undefined,
  ) {}

  get ended(): boolean {
    return this.done;
  }

  get heldBytes(): number {
    return this.reading;
  }

  get openFiles(): number {
    return this.handle === undefined ? 0 : 1;
  }

  async next(): Promise<Outgoing | undefined> {
    const ends = this.run.frameEnds;
    if (this.seq < ends.length && this.handle !== undefined) {
      const seq = this.seq++;
      const start = seq === 0 ? 0 : ends[seq - 1]!;
      const bytes = ends[seq]! - start;
      const { frame, batchesAt } = allocLiveFrame(this.run.runId, seq, bytes);
      this.reading = frame.length;
      try {
        await readExactly(this.handle, frame, batchesAt, bytes, start);
      } finally {
        this.reading = 0;
      }
      if (this.seq >= ends.length) {
        this.closeFile();
      }
      return { data: frame, binary: true };
    }
    this.closeFile();
    if (!this.finalSent && this.run.final !== undefined) {
      this.finalSent = true;
      return { data: JSON.stringify(this.run.final), binary: false };
    }
    this.done = true;
    return undefined;
  }

  onAppend(): () => void {
    // A stored run never grows.
    return () => undefined;
  }

  close(): void {
    this.done = true;
    this.closeFile();
  }

  private closeFile(): void {
    const handle = this.handle;
    this.handle = undefined;
    // A read still in flight finishes first: the handle closes when it is done.
    void handle?.close().catch(() => undefined);
  }
}

async function readExactly(
  handle: FileHandle,
  into: Buffer,
  at: number,
  bytes: number,
  position: number,
): Promise<void> {
  let done = 0;
  while (done < bytes) {
    const { bytesRead } = await handle.read(into, at + done, bytes - done, position + done);
    if (bytesRead === 0) {
      throw new Error(
        `the trace file ends at byte ${position + done}, inside frame bytes ${position}..${position + bytes}`,
      );
    }
    done += bytesRead;
  }
}

/**
 * Frame ends for a file that was never streamed: whole batches, grouped up to about
 * `storedFrameTargetBytes` each (one bigger batch makes a frame of its own), so a subscriber
 * holds one such frame at a time. Only the 16-byte batch headers are read. A header that is not
 * a batch ends the scan: the rest of the file is one frame, and the client's decoder names the
 * damage.
 */
export async function batchFrameEnds(filePath: string): Promise<Float64Array> {
  const handle = await open(filePath, 'r');
  try {
    const fileBytes = (await handle.stat()).size;
    const ends: number[] = [];
    const header = Buffer.alloc(batchHeaderBytes);
    let frameStart = 0;
    let at = 0;
    while (at < fileBytes) {
      const { bytesRead } = await handle.read(header, 0, batchHeaderBytes, at);
      if (bytesRead < batchHeaderBytes || header.readUInt32LE(0) !== batchMagic) {
        at = fileBytes;
        break;
      }
      const batchEnd = Math.min(fileBytes, at + batchHeaderBytes + header.readUInt32LE(12));
      if (batchEnd - frameStart > storedFrameTargetBytes && at > frameStart) {
        ends.push(at);
        frameStart = at;
      }
      at = batchEnd;
    }
    if (at > frameStart) {
      ends.push(at);
    }
    return Float64Array.from(ends);
  } finally {
    await handle.close();
  }
}
