import { Trace } from '../trace.ts';
import { ByteReader } from './byte-reader.ts';
import { CodecError } from './codec-error.ts';
import { BatchKind, maxRecordsPerBatch } from './batch-format.ts';
import { readBatchHeader } from './batch-header.ts';
import type { PositionedFile, ReadBuffer } from './batch-runs.ts';
import { batchRuns, readBuffer } from './batch-runs.ts';
import type { OpScratch } from './decode-ops.ts';
import { decodeOpRecords, makeOpScratch } from './decode-ops.ts';
import type { FlowScratch, RangeScratch } from './decode-side-records.ts';
import {
  decodeFlowRecords,
  decodeRangeRecords,
  makeFlowScratch,
  makeRangeScratch,
} from './decode-side-records.ts';
import type {
  FlowBatch,
  OpBatch,
  OpBatchRange,
  RangeBatch,
  RecordBatches,
} from './record-batches.ts';
import { copyOps, defaultOpBatchOps, sliceOps } from './record-batches.ts';
import type { RecordCounts } from './trace-decoder.ts';
import { TraceDecoder } from './trace-decoder.ts';

export interface OpBatchReaderOptions {
  /** A live run's snapshot: it may end without its end batch. */
  readonly partial?: boolean;
  /** Awaited between reads while the file is checked (a worker lets an abort in there). */
  readonly between?: () => Promise<void>;
}

/** One stored batch of a kind, its first-index field read and checked. */
interface RecordPayload {
  readonly first: number;
  readonly count: number;
  readonly reader: ByteReader;
}

/**
 * A stored trace file read a batch of ops at a time. `open` reads the file once, checking every
 * batch exactly as `loadTrace` does (the same errors, naming the file and its byte), and keeps
 * only the small tables: meta, strings, devices, processes, tracks and launch configs. Ops,
 * flows and ranges are then read again from the file each time they are asked for, through
 * a buffer of a few MB: memory stays that of a few batches whatever the number of ops.
 */
export class OpBatchReader implements RecordBatches {
  // Buffers kept from one pass for the next: each pass would otherwise leave megabytes of
  // garbage that is freed only when the collector next runs (an export makes a ranged ops pass
  // per window of flows).
  private readonly readBuffers = new Spares<ReadBuffer>();
  private readonly opBuffers = new Spares<{
    readonly scratch: OpScratch;
    readonly out: OpScratch;
  }>();
  private readonly flowScratch = new Spares<FlowScratch>();
  private readonly rangeScratch = new Spares<RangeScratch>();

  private constructor(
    private readonly file: PositionedFile,
    readonly trace: Trace,
    readonly counts: RecordCounts,
    through: ReadBuffer,
  ) {
    this.readBuffers.give(through);
  }

  static async open(
    file: PositionedFile,
    options: OpBatchReaderOptions = {},
  ): Promise<OpBatchReader> {
    try {
      // A live run's snapshot may hold no batch yet: an empty trace.
      if (file.byteLength === 0 && options.partial !== true) {
        throw new CodecError('empty file: not a streamscope trace', 0);
      }
      const decoder = new TraceDecoder(new Trace(), { keepRecords: false });
      let ended = false;
      let batches = 0;
      const through = readBuffer();
      for (const run of batchRuns(file, through)) {
        await options.between?.();
        if (ended) {
          throw new CodecError(`data follows the end batch at byte ${run.offset}`, run.offset);
        }
        const result = decoder.apply(run.bytes, run.offset);
        ended = result.end !== undefined;
        batches += result.batches;
      }
      if (!ended && options.partial !== true) {
        throw new CodecError(
          `no end batch after ${batches} batches (${file.byteLength} bytes): the file is truncated`,
          file.byteLength,
        );
      }
      return new OpBatchReader(file, decoder.trace, decoder.recordCounts, through);
    } catch (error) {
      throw inFile(file, error);
    }
  }

  /**
   * Ops `fromOp` … `toOp − 1` in index order, at most `maxOps` a batch; stored batches outside
   * the range are not decoded, and reading stops after the last one in it.
   */
  *opBatches(range: OpBatchRange = {}): Generator<OpBatch, void, undefined> {
    const maxOps = range.maxOps ?? defaultOpBatchOps;
    const fromOp = range.fromOp ?? 0;
    const toOp = Math.min(range.toOp ?? this.counts.ops, this.counts.ops);
    if (fromOp >= toOp) {
      return;
    }
    const buffers = this.opBuffers.take(
      (b) => b.out.kind.length === maxOps,
      () => ({ scratch: makeOpScratch(maxRecordsPerBatch), out: makeOpScratch(maxOps) }),
    );
    try {
      yield* this.opsInRange(fromOp, toOp, maxOps, buffers.scratch, buffers.out);
    } finally {
      this.opBuffers.give(buffers);
    }
  }

  private *opsInRange(
    fromOp: number,
    toOp: number,
    maxOps: number,
    scratch: OpScratch,
    out: OpScratch,
  ): Generator<OpBatch, void, undefined> {
    const t = this.trace;
    const limits = {
      tracks: t.tracks.length,
      strings: t.strings.count,
      launches: t.launches.count,
    };
    let filled = 0;
    let firstIndex = fromOp;
    for (const { first, count, reader } of this.payloads(BatchKind.Ops)) {
      if (first + count <= fromOp) {
        continue;
      }
      this.guard(() => decodeOpRecords(reader, count, limits, scratch));
      const stop = Math.min(first + count, toOp) - first;
      for (let i = Math.max(first, fromOp) - first; i < stop;) {
        const n = Math.min(stop - i, maxOps - filled);
        copyOps(scratch, i, out, filled, n);
        filled += n;
        i += n;
        if (filled === maxOps) {
          yield { firstIndex, ops: sliceOps(out, 0, filled) };
          firstIndex += filled;
          filled = 0;
        }
      }
      if (first + count >= toOp) {
        break;
      }
    }
    if (filled > 0) {
      yield { firstIndex, ops: sliceOps(out, 0, filled) };
    }
  }

  /** Flows in index order, one stored batch (at most `maxRecordsPerBatch`) at a time. */
  *flowBatches(): Generator<FlowBatch, void, undefined> {
    const s = this.flowScratch.take(
      () => true,
      () => makeFlowScratch(maxRecordsPerBatch),
    );
    try {
      for (const { first, count, reader } of this.payloads(BatchKind.Flows)) {
        this.guard(() => decodeFlowRecords(reader, count, this.counts.ops, s));
        yield {
          firstIndex: first,
          flows: {
            count,
            fromOp: s.fromOp.subarray(0, count),
            toOp: s.toOp.subarray(0, count),
            kind: s.kind.subarray(0, count),
          },
        };
      }
    } finally {
      this.flowScratch.give(s);
    }
  }

  /** Ranges in index order, one stored batch at a time. */
  *rangeBatches(): Generator<RangeBatch, void, undefined> {
    const t = this.trace;
    const s = this.rangeScratch.take(
      () => true,
      () => makeRangeScratch(maxRecordsPerBatch),
    );
    try {
      for (const { first, count, reader } of this.payloads(BatchKind.Ranges)) {
        this.guard(() => decodeRangeRecords(reader, count, t.tracks.length, t.strings.count, s));
        yield {
          firstIndex: first,
          ranges: {
            count,
            startNs: s.startNs.subarray(0, count),
            endNs: s.endNs.subarray(0, count),
            track: s.track.subarray(0, count),
            nameId: s.nameId.subarray(0, count),
            domainId: s.domainId.subarray(0, count),
            depth: s.depth.subarray(0, count),
            kind: s.kind.subarray(0, count),
          },
        };
      }
    } finally {
      this.rangeScratch.give(s);
    }
  }

  /**
   * Each stored batch of `kind` in file order, with a reader at its first record. `open` checked
   * the file; what is checked again here names the place if the file changed since.
   */
  private *payloads(kind: BatchKind): Generator<RecordPayload, void, undefined> {
    const through = this.readBuffers.take(() => true, readBuffer);
    try {
      yield* this.payloadsThrough(kind, through);
    } finally {
      this.readBuffers.give(through);
    }
  }

  private *payloadsThrough(
    kind: BatchKind,
    through: ReadBuffer,
  ): Generator<RecordPayload, void, undefined> {
    let index = 0;
    let held = 0;
    for (const run of batchRuns(this.file, through)) {
      const bytes = run.bytes;
      for (let at = 0; at < bytes.length; index++) {
        const header = this.guard(() => readBatchHeader(bytes, at, index, run.offset));
        if (header.kind === kind) {
          const batch = index;
          const reader = new ByteReader(
            bytes,
            header.payloadStart,
            header.payloadEnd,
            (record) =>
              record < 0
                ? `batch ${batch} (${header.name})`
                : `batch ${batch} (${header.name}), record ${record}`,
            run.offset,
          );
          const first = this.guard(() => reader.varint('firstIndex'));
          if (first !== held) {
            this.guard(() =>
              reader.fail('firstIndex', `batch starts at record ${first} but ${held} were read`),
            );
          }
          yield { first, count: header.count, reader };
          held += header.count;
        }
        at = header.payloadEnd;
      }
    }
  }

  /** Runs `read`, naming the file in a codec error. */
  private guard<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      throw inFile(this.file, error);
    }
  }
}

/** Buffers not in use, for the next pass to take instead of allocating its own. */
class Spares<T> {
  private readonly items: T[] = [];

  take(fits: (item: T) => boolean, make: () => T): T {
    const at = this.items.findIndex(fits);
    return at < 0 ? make() : this.items.splice(at, 1)[0]!;
  }

  give(item: T): void {
    this.items.push(item);
  }
}

function inFile(file: PositionedFile, error: unknown): unknown {
  return error instanceof CodecError
    ? new CodecError(`${file.name}: ${error.message}`, error.byteOffset)
    : error;
}
