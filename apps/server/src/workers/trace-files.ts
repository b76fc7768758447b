import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RunLog } from '../live/run-log.ts';
import { tempSuffix } from '../storage/atomic-file.ts';
import type { TraceFileRef } from './protocol.ts';

/** A trace file a worker may read, and what to do once it has. */
export interface TraceFileLease {
  readonly ref: TraceFileRef;
  release(): Promise<void>;
}

/** A stored trace file as it is: nothing to clean up. */
export function storedTraceFile(filePath: string, opCount: number): TraceFileLease {
  return { ref: { path: filePath, partial: false, opCount }, release: () => Promise.resolve() };
}

/**
 * A live run's record stream so far, written to a temporary file beside the stored traces for a
 * worker to read (startup recovery deletes one a crash leaves). The frames are the log's own
 * buffers, written as they are: nothing is decoded or copied on the event loop.
 */
export async function snapshotRunLog(
  log: RunLog,
  dir: string,
  id: string,
  opCount: number,
): Promise<TraceFileLease> {
  const filePath = path.join(dir, `${id}.snapshot-${randomBytes(6).toString('hex')}${tempSuffix}`);
  // The frames there now: the log only grows, and each frame's bytes never change.
  const entries = log.entries.slice();
  const frames = function* (): Generator<Buffer> {
    for (const entry of entries) {
      if (entry.kind === 'frame') {
        yield entry.data.subarray(entry.data.length - entry.batchBytes);
      }
    }
  };
  try {
    await pipeline(
      Readable.from(frames()),
      createWriteStream(filePath, { flags: 'wx', mode: 0o600 }),
    );
  } catch (error) {
    await rm(filePath, { force: true });
    throw error;
  }
  return {
    ref: { path: filePath, partial: true, opCount },
    release: () => rm(filePath, { force: true }),
  };
}
