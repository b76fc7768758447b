import type { OpColumns } from '../op-table.ts';
import type { FlowColumns, RangeColumns } from '../side-tables.ts';
import type { Trace } from '../trace.ts';
import type { RecordCounts } from './trace-decoder.ts';

/** Ops `firstIndex` … `firstIndex + ops.count − 1` of a trace. */
export interface OpBatch {
  readonly firstIndex: number;
  readonly ops: OpColumns;
}

export interface FlowBatch {
  readonly firstIndex: number;
  readonly flows: FlowColumns;
}

export interface RangeBatch {
  readonly firstIndex: number;
  readonly ranges: RangeColumns;
}

/** Which ops `opBatches` yields, and at most how many at a time. */
export interface OpBatchRange {
  /** First op yielded (default 0). */
  readonly fromOp?: number;
  /** One past the last op yielded (default: all). */
  readonly toOp?: number;
  /** Most ops in one batch (default `defaultOpBatchOps`). */
  readonly maxOps?: number;
}

export const defaultOpBatchOps = 65536;

/**
 * A trace whose ops, flows and ranges are read a batch at a time, in index order: from a trace
 * in memory (`traceRecordBatches`) or from a stored file (`OpBatchReader`), whose memory stays
 * that of a few batches whatever the trace's size. A batch's columns are valid until the next
 * one is asked for.
 */
export interface RecordBatches {
  /** Meta, strings, devices, processes, tracks and launch configs (and, in memory, the rest). */
  readonly trace: Trace;
  readonly counts: RecordCounts;
  opBatches(range?: OpBatchRange): Iterable<OpBatch>;
  flowBatches(): Iterable<FlowBatch>;
  rangeBatches(): Iterable<RangeBatch>;
}

/** A trace in memory as record batches: views of its columns, nothing copied. */
export function traceRecordBatches(trace: Trace): RecordBatches {
  const counts = {
    ops: trace.ops.count,
    flows: trace.flows.count,
    ranges: trace.ranges.count,
  };
  return {
    trace,
    counts,
    *opBatches(range: OpBatchRange = {}): Generator<OpBatch> {
      const ops = trace.ops.columns();
      const maxOps = range.maxOps ?? defaultOpBatchOps;
      const toOp = Math.min(range.toOp ?? ops.count, ops.count);
      for (let first = range.fromOp ?? 0; first < toOp; first += maxOps) {
        yield { firstIndex: first, ops: sliceOps(ops, first, Math.min(toOp, first + maxOps)) };
      }
    },
    *flowBatches(): Generator<FlowBatch> {
      const flows = trace.flows.columns();
      if (flows.count > 0) {
        yield { firstIndex: 0, flows };
      }
    },
    *rangeBatches(): Generator<RangeBatch> {
      const ranges = trace.ranges.columns();
      if (ranges.count > 0) {
        yield { firstIndex: 0, ranges };
      }
    },
  };
}

/** Ops `from` … `to − 1` of `c` as views. */
export function sliceOps(c: Omit<OpColumns, 'count'>, from: number, to: number): OpColumns {
  return {
    count: to - from,
    startNs: c.startNs.subarray(from, to),
    endNs: c.endNs.subarray(from, to),
    bytes: c.bytes.subarray(from, to),
    track: c.track.subarray(from, to),
    nameId: c.nameId.subarray(from, to),
    correlationId: c.correlationId.subarray(from, to),
    refId: c.refId.subarray(from, to),
    kind: c.kind.subarray(from, to),
    memKinds: c.memKinds.subarray(from, to),
    flags: c.flags.subarray(from, to),
  };
}

/** Copies ops `from` … `from + n − 1` of `src` to `dst` from `at`. */
export function copyOps(
  src: Omit<OpColumns, 'count'>,
  from: number,
  dst: Omit<OpColumns, 'count'>,
  at: number,
  n: number,
): void {
  const to = from + n;
  dst.startNs.set(src.startNs.subarray(from, to), at);
  dst.endNs.set(src.endNs.subarray(from, to), at);
  dst.bytes.set(src.bytes.subarray(from, to), at);
  dst.track.set(src.track.subarray(from, to), at);
  dst.nameId.set(src.nameId.subarray(from, to), at);
  dst.correlationId.set(src.correlationId.subarray(from, to), at);
  dst.refId.set(src.refId.subarray(from, to), at);
  dst.kind.set(src.kind.subarray(from, to), at);
  dst.memKinds.set(src.memKinds.subarray(from, to), at);
  dst.flags.set(src.flags.subarray(from, to), at);
}
