import { noRef } from '../op-table.ts';
import { launchConfigFields } from '../side-tables.ts';
import type { Trace } from '../trace.ts';
import { ByteWriter } from './byte-writer.ts';
import {
  BatchKind,
  OpField,
  batchHeaderBytes,
  batchMagic,
  codecVersion,
  maxRecordsPerBatch,
} from './batch-format.ts';

/** How far each table has been sent. */
interface Watermarks {
  meta: string;
  strings: number;
  devices: number;
  processes: number;
  tracks: number;
  launches: number;
  ops: number;
  flows: number;
  ranges: number;
}

/**
 * Encodes what a trace gained since the last call: the same batches serve a live channel (call
 * `encodeNew` after each producer step) and a file (`saveTrace`). Batches come out in dependency
 * order: strings and structure before the ops that name them, ops before the flows that link them.
 */
export class TraceEncoder {
  private readonly sent: Watermarks = {
    meta: '',
    strings: 1, // id 0, the empty string, exists on both sides
    devices: 0,
    processes: 0,
    tracks: 0,
    launches: 0,
    ops: 0,
    flows: 0,
    ranges: 0,
  };
  private w = new ByteWriter(1 << 16);
  /** No batch begins once a call's output holds this many bytes (`encodeNew`'s `maxBytes`). */
  private budgetBytes = Number.POSITIVE_INFINITY;

  constructor(private readonly trace: Trace) {}

  /** Counts sent so far (for the end batch and for resuming). */
  get sentCounts(): Readonly<Watermarks> {
    return this.sent;
  }

  /**
   * Every batch for what is new since the last call; an empty array when nothing is. With
   * `maxBytes`, it stops at the first batch boundary past that many bytes (a batch is never cut),
   * and the next call goes on from there in the same order: a file is written piece by piece,
   * the same batches as one call would make (`traceChunks`).
   */
  encodeNew(maxBytes = Number.POSITIVE_INFINITY): Uint8Array {
    this.budgetBytes = maxBytes;
    // Each table stops when the budget is spent; the later ones wait, as they may name its rows.
    const steps = [
      () => this.encodeMeta(),
      () => this.encodeStrings(),
      () => this.encodeStructure(),
      () => this.encodeLaunches(),
      () => this.encodeOps(),
      () => this.encodeFlows(),
      () => this.encodeRanges(),
    ];
    for (const step of steps) {
      step();
      if (this.spent()) {
        break;
      }
    }
    const out = this.w.finish();
    this.reset();
    return out;
  }

  /** The end batch: final counts, so a reader can tell a whole file from a truncated one. */
  encodeEnd(): Uint8Array {
    const s = this.sent;
    const counts = [
      s.strings,
      s.devices,
      s.processes,
      s.tracks,
      s.launches,
      s.ops,
      s.flows,
      s.ranges,
    ];
    const at = this.begin(BatchKind.End, counts.length);
    for (const count of counts) {
      this.w.varint(count);
    }
    this.end(at);
    const out = this.w.finish();
    this.reset();
    return out;
  }

  /** This call's output has reached its budget: no further batch begins in it. */
  private spent(): boolean {
    return this.w.length >= this.budgetBytes;
  }

  private reset(): void {
    // A fresh writer per call keeps memory bounded by one call's output.
    this.w = new ByteWriter(1 << 16);
  }

  private begin(kind: BatchKind, count: number): number {
    const w = this.w;
    const at = w.length;
    w.u32(batchMagic);
    w.u8(codecVersion);
    w.u8(kind);
    w.u16(0);
    w.u32(count);
    w.u32(0); // payload length, patched by end()
    return at;
  }

  private end(at: number): void {
    this.w.patchU32(at + 12, this.w.length - at - batchHeaderBytes);
  }

  private encodeMeta(): void {
    const json = JSON.stringify(this.trace.meta);
    if (json === this.sent.meta) {
      return;
    }
    const at = this.begin(BatchKind.Meta, 1);
    this.w.utf8(json);
    this.end(at);
    this.sent.meta = json;
  }

  private encodeStrings(): void {
    const strings = this.trace.strings;
    while (this.sent.strings < strings.count && !this.spent()) {
      const first = this.sent.strings;
      const last = Math.min(strings.count, first + maxRecordsPerBatch);
      const at = this.begin(BatchKind.Strings, last - first);
      this.w.varint(first);
      for (const value of strings.slice(first, last)) {
        this.w.utf8(value);
      }
      this.end(at);
      this.sent.strings = last;
    }
  }

  private encodeStructure(): void {
    const t = this.trace;
    const s = this.sent;
    if (
      s.devices === t.devices.length &&
      s.processes === t.processes.length &&
      s.tracks === t.tracks.length
    ) {
      return;
    }
    const payload = {
      firstDevice: s.devices,
      devices: t.devices.slice(s.devices),
      firstProcess: s.processes,
      processes: t.processes.slice(s.processes),
      firstTrack: s.tracks,
      tracks: t.tracks.slice(s.tracks),
    };
    const count = payload.devices.length + payload.processes.length + payload.tracks.length;
    const at = this.begin(BatchKind.Structure, count);
    this.w.utf8(JSON.stringify(payload));
    this.end(at);
    s.devices = t.devices.length;
    s.processes = t.processes.length;
    s.tracks = t.tracks.length;
  }

  private encodeLaunches(): void {
    const launches = this.trace.launches;
    while (this.sent.launches < launches.count && !this.spent()) {
      const first = this.sent.launches;
      const last = Math.min(launches.count, first + maxRecordsPerBatch);
      const at = this.begin(BatchKind.Launches, last - first);
      this.w.varint(first);
      for (const config of launches.slice(first, last)) {
        for (const field of launchConfigFields) {
          this.w.varint(config[field]);
        }
      }
      this.end(at);
      this.sent.launches = last;
    }
  }

  private encodeOps(): void {
    const ops = this.trace.ops.columns();
    const w = this.w;
    while (this.sent.ops < ops.count && !this.spent()) {
      const first = this.sent.ops;
      const last = Math.min(ops.count, first + maxRecordsPerBatch);
      const at = this.begin(BatchKind.Ops, last - first);
      w.varint(first);
      let prevStartNs = 0;
      let prevCorrelation = 0;
      let prevTrack = -1;
      for (let i = first; i < last; i++) {
        const startNs = Math.round(ops.startNs[i]!);
        const durNs = Math.max(0, Math.round(ops.endNs[i]!) - startNs);
        const bytes = ops.bytes[i]!;
        const memKinds = ops.memKinds[i]!;
        const correlationId = ops.correlationId[i]!;
        const refId = ops.refId[i]!;
        const flags = ops.flags[i]!;
        const track = ops.track[i]!;
        let mask = 0;
        if (bytes !== 0) {
          mask |= OpField.Bytes;
        }
        if (memKinds !== 0) {
          mask |= OpField.MemKinds;
        }
        if (correlationId !== 0) {
          mask |= OpField.Correlation;
        }
        if (refId !== noRef) {
          mask |= OpField.Ref;
        }
        if (flags !== 0) {
          mask |= OpField.Flags;
        }
        if (track === prevTrack) {
          mask |= OpField.SameTrack;
        }
        w.u8(ops.kind[i]!);
        w.u8(mask);
        if (track !== prevTrack) {
          w.varint(track);
          prevTrack = track;
        }
        w.zigzag(startNs - prevStartNs);
        prevStartNs = startNs;
        w.varint(durNs);
        w.varint(ops.nameId[i]!);
        if (bytes !== 0) {
          w.varint(Math.round(bytes));
        }
        if (memKinds !== 0) {
          w.u8(memKinds);
        }
        if (correlationId !== 0) {
          w.zigzag(correlationId - prevCorrelation);
          prevCorrelation = correlationId;
        }
        if (refId !== noRef) {
          w.varint(refId);
        }
        if (flags !== 0) {
          w.u8(flags);
        }
      }
      this.end(at);
      this.sent.ops = last;
    }
  }

  private encodeFlows(): void {
    const flows = this.trace.flows.columns();
    while (this.sent.flows < flows.count && !this.spent()) {
      const first = this.sent.flows;
      const last = Math.min(flows.count, first + maxRecordsPerBatch);
      const at = this.begin(BatchKind.Flows, last - first);
      this.w.varint(first);
      for (let i = first; i < last; i++) {
        this.w.u8(flows.kind[i]!);
        this.w.varint(flows.fromOp[i]!);
        this.w.zigzag(flows.toOp[i]! - flows.fromOp[i]!);
      }
      this.end(at);
      this.sent.flows = last;
    }
  }

  private encodeRanges(): void {
    const ranges = this.trace.ranges.columns();
    while (this.sent.ranges < ranges.count && !this.spent()) {
      const first = this.sent.ranges;
      const last = Math.min(ranges.count, first + maxRecordsPerBatch);
      const at = this.begin(BatchKind.Ranges, last - first);
      this.w.varint(first);
      let prevStartNs = 0;
      for (let i = first; i < last; i++) {
        const startNs = Math.round(ranges.startNs[i]!);
        this.w.u8(ranges.kind[i]!);
        this.w.varint(ranges.track[i]!);
        this.w.zigzag(startNs - prevStartNs);
        prevStartNs = startNs;
        this.w.varint(Math.max(0, Math.round(ranges.endNs[i]!) - startNs));
        this.w.varint(ranges.nameId[i]!);
        this.w.varint(ranges.domainId[i]!);
        this.w.u8(ranges.depth[i]!);
      }
      this.end(at);
      this.sent.ranges = last;
    }
  }
}

/**
 * The whole trace in the codec's container, in pieces of about `chunkBytes` (a batch is never
 * cut): every batch, then the end batch. Writing the pieces as they come holds one piece, never
 * the whole encoding (a 120M-op trace is gigabytes of it).
 */
export function* traceChunks(trace: Trace, chunkBytes = 8 << 20): Generator<Uint8Array> {
  const encoder = new TraceEncoder(trace);
  for (;;) {
    const piece = encoder.encodeNew(chunkBytes);
    if (piece.length === 0) {
      break;
    }
    yield piece;
  }
  yield encoder.encodeEnd();
}

/** The whole trace in the codec's container, in one array: every batch, then an end batch. */
export function saveTrace(trace: Trace): Uint8Array {
  const encoder = new TraceEncoder(trace);
  const body = encoder.encodeNew();
  const end = encoder.encodeEnd();
  const out = new Uint8Array(body.length + end.length);
  out.set(body, 0);
  out.set(end, body.length);
  return out;
}
