import { open, stat } from 'node:fs/promises';
import { importPeakBytesPerOp, sniffFormat } from '@streamscope/importers';
import { endBatchMaxBytes, endCountsOf } from '@streamscope/trace';
import { usableMemoryBytes } from '../config.ts';

// What a task that decodes a whole stored trace may reach, per op of the trace, as measured on
// the 175.9M ops (and 6.9M ranges) of a 50M-GPU-op nsys export (#22): the pool lets such tasks
// run side by side only while their sum fits its memory budget.

/**
 * What a task that decodes a whole trace needs, per op and per range (a kineto trace holds half
 * again as many ranges as ops, CPU ops and Python functions; an nsys export few): sized by ops
 * alone, the analysis of the 121M-op, 185M-range trace of a 50M-GPU-op kineto export declared
 * 15.7 GB, reached past the machine's 23 GB and had the server killed for memory.
 */
export interface DecodeCost {
  readonly bytesPerOp: number;
  readonly bytesPerRange: number;
}

/**
 * The trace decoded: 8.89 GB of RSS for 175.9M ops, 51 bytes an op; ranges 37-48 bytes each
 * (the 12.1M-op, 18.5M-range trace of a 5M-GPU-op kineto export, 1.40 GB past its file; 3.7M
 * ranges at 1M GPU ops, 0.40 GB).
 */
export const decodedTrace: DecodeCost = { bytesPerOp: 51, bytesPerRange: 40 };
/**
 * An analysis: the decoded trace, its context, gaps and rules: 22.85 GB at 175.9M ops (6.9M
 * ranges); ranges 72-84 bytes each beyond that (3.01 GB for the 5M-GPU-op kineto trace, 0.72 GB
 * at 1M: `streamscope analyze`, /usr/bin/time).
 */
export const analysisCost: DecodeCost = { bytesPerOp: 130, bytesPerRange: 80 };
/**
 * Tiles built from a stored trace: the decoded trace and the pyramid's orders, as an import's
 * per op; the pyramid adds nothing per range past their decoding (the 5M-GPU-op kineto trace's
 * peak was its decoding's).
 */
export const tileBuildCost: DecodeCost = {
  bytesPerOp: importPeakBytesPerOp,
  bytesPerRange: decodedTrace.bytesPerRange,
};

/**
 * The ops and ranges of the trace file at `filePath`, from its end batch (a few bytes read from
 * its end); undefined for a file without one (a live run's records so far).
 */
export async function traceFileCounts(
  filePath: string,
): Promise<{ readonly ops: number; readonly ranges: number } | undefined> {
  const handle = await open(filePath, 'r');
  try {
    const size = (await handle.stat()).size;
    const tail = new Uint8Array(Math.min(size, endBatchMaxBytes));
    await handle.read(tail, 0, tail.length, size - tail.length);
    const counts = endCountsOf(tail);
    return counts === undefined ? undefined : { ops: counts.ops, ranges: counts.ranges };
  } finally {
    await handle.close();
  }
}

/** Share of the machine's memory the tasks that say what they need may hold at once. */
export const taskMemoryShare = 0.8;

export function defaultTaskMemoryBudgetBytes(): number {
  return taskMemoryShare * usableMemoryBytes();
}

/**
 * An import's peak over its file's size (`pnpm bench scale --gpu-ops 1000000`, and the 20M and
 * 50M-GPU-op files of #22): SQLite 1.63× (1.28× at 50M), nsys JSON 0.36× (0.25× at 20M), kineto
 * 0.27× (0.24× at 20M). A gzip'd file inflates 4.5× (SQLite) to 23× (nsys JSON) in the recorded
 * fixtures: 0.36 × 23 or 1.63 × 4.5, at most 8.4× the compressed bytes.
 */
export const importBytesPerSqliteByte = 2;
export const importBytesPerJsonByte = 0.5;
export const importBytesPerGzipByte = 9;

/**
 * What the import of `filePath` may reach: its size times the measured peak for its kind (told
 * by its first bytes, as the import tells it: gzip, SQLite, else JSON), and never more than the
 * ops it may keep (`maxOps`) at the import's peak per op.
 */
export async function importMemoryBytes(filePath: string, maxOps: number): Promise<number> {
  const handle = await open(filePath, 'r');
  try {
    const head = new Uint8Array(64);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const sniffed = sniffFormat(head.subarray(0, bytesRead));
    const perByte = !sniffed.ok
      ? importBytesPerJsonByte
      : sniffed.gzip
        ? importBytesPerGzipByte
        : sniffed.format === 'nsys-sqlite'
          ? importBytesPerSqliteByte
          : importBytesPerJsonByte;
    const fileBytes = (await handle.stat()).size;
    return Math.min(maxOps * importPeakBytesPerOp, fileBytes * perByte);
  } finally {
    await handle.close();
  }
}

/**
 * An uploaded streamscope container's check (decoded whole, encoded again, its tiles built) over
 * its file's size: 7.5× for the 17.6M-op container of a 5M-GPU-op nsys export (1.56 GB of RSS
 * for 207 MB), 9.6× for a 3.5M-op one (415 MB for 43 MB, the runtime's own part larger).
 */
export const containerBytesPerFileByte = 8;

/** What the check of the container `filePath` may reach, never more than `maxOps` ops' worth. */
export async function containerMemoryBytes(filePath: string, maxOps: number): Promise<number> {
  const fileBytes = (await stat(filePath)).size;
  return Math.min(maxOps * importPeakBytesPerOp, fileBytes * containerBytesPerFileByte);
}
