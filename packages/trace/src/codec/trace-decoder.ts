import type { LaunchConfig } from '../side-tables.ts';
import { launchConfigFields } from '../side-tables.ts';
import { Trace } from '../trace.ts';
import { ByteReader } from './byte-reader.ts';
import { CodecError } from './codec-error.ts';
import type { OpScratch } from './decode-ops.ts';
import { decodeOpRecords, makeOpScratch } from './decode-ops.ts';
import type { FlowScratch, RangeScratch } from './decode-side-records.ts';
import {
  decodeFlowRecords,
  decodeRangeRecords,
  makeFlowScratch,
  makeRangeScratch,
} from './decode-side-records.ts';
import { BatchKind, batchHeaderBytes, batchMagic, maxRecordsPerBatch } from './batch-format.ts';
import { readBatchHeader } from './batch-header.ts';
import { ShapeError, checkMeta, checkStructure } from './structure-check.ts';

/** Final counts carried by an end batch. */
export interface EndCounts {
  readonly strings: number;
  readonly devices: number;
  readonly processes: number;
  readonly tracks: number;
  readonly launches: number;
  readonly ops: number;
  readonly flows: number;
  readonly ranges: number;
}

export interface ApplyResult {
  readonly batches: number;
  readonly opsAdded: number;
  /** Set when the buffer held an end batch (the producer is done). */
  readonly end?: EndCounts;
}

export interface TraceDecoderOptions {
  /**
   * False: ops, flows and ranges are checked exactly as when kept, and counted
   * (`recordCounts`), but not kept; the trace holds the rest (meta, strings, structure,
   * launches). A reader that streams the records from the file later opens it so.
   */
  readonly keepRecords?: boolean;
}

/** Ops, flows and ranges received so far (kept or not). */
export interface RecordCounts {
  readonly ops: number;
  readonly flows: number;
  readonly ranges: number;
}

/**
 * Applies record-stream batches to a trace. Each batch is validated whole before any of it is
 * applied, so a corrupt batch leaves the trace as it was; the error names the batch, the
 * record, the field and the byte. Nothing is ever read outside the given buffer.
 */
export class TraceDecoder {
  readonly trace: Trace;
  private batchIndex = 0;
  private readonly keepRecords: boolean;
  private readonly counted = { ops: 0, flows: 0, ranges: 0 };
  private scratch: OpScratch | undefined;
  private flowScratch: FlowScratch | undefined;
  private rangeScratch: RangeScratch | undefined;

  constructor(trace: Trace = new Trace(), options: TraceDecoderOptions = {}) {
    this.trace = trace;
    this.keepRecords = options.keepRecords ?? true;
  }

  /** Ops, flows and ranges received so far, kept or not. */
  get recordCounts(): RecordCounts {
    const t = this.trace;
    return this.keepRecords
      ? { ops: t.ops.count, flows: t.flows.count, ranges: t.ranges.count }
      : { ...this.counted };
  }

  /**
   * Applies the whole batches in `bytes`. `base` is where `bytes[0]` lies in the file or stream
   * read, so an error names the byte there.
   */
  apply(bytes: Uint8Array, base = 0): ApplyResult {
    this.reserveFor(bytes);
    let at = 0;
    let batches = 0;
    let opsAdded = 0;
    let end: EndCounts | undefined;
    while (at < bytes.length) {
      if (end !== undefined) {
        throw new CodecError(`data follows the end batch at byte ${base + at}`, base + at);
      }
      const index = this.batchIndex;
      const { kind, name, count, payloadStart, payloadEnd } = readBatchHeader(
        bytes,
        at,
        index,
        base,
      );
      const reader = new ByteReader(
        bytes,
        payloadStart,
        payloadEnd,
        (record) =>
          record < 0 ? `batch ${index} (${name})` : `batch ${index} (${name}), record ${record}`,
        base,
      );
      switch (kind) {
        case BatchKind.Meta:
          this.applyMeta(reader);
          break;
        case BatchKind.Strings:
          this.applyStrings(reader, count);
          break;
        case BatchKind.Structure:
          this.applyStructure(reader);
          break;
        case BatchKind.Launches:
          this.applyLaunches(reader, count);
          break;
        case BatchKind.Ops:
          opsAdded += this.applyOps(reader, count);
          break;
        case BatchKind.Flows:
          this.applyFlows(reader, count);
          break;
        case BatchKind.Ranges:
          this.applyRanges(reader, count);
          break;
        case BatchKind.End:
          end = this.readEnd(reader);
          break;
        default:
          throw new CodecError(
            `batch ${index}: unknown batch kind ${kind} at byte ${base + at + 5}`,
            base + at + 5,
          );
      }
      if (reader.remaining !== 0) {
        reader.record = -1;
        reader.fail('payload', `${reader.remaining} unread bytes remain`);
      }
      at = payloadEnd;
      batches++;
      this.batchIndex++;
    }
    if (opsAdded > 0) {
      this.trace.version++;
    }
    return end === undefined ? { batches, opsAdded } : { batches, opsAdded, end };
  }

  private first(reader: ByteReader, field: string, have: number): void {
    const first = reader.varint(field);
    if (first !== have) {
      reader.fail(
        field,
        `batch starts at record ${first} but ${have} are held (a gap or a repeat)`,
      );
    }
  }

  private json(reader: ByteReader, check: (v: unknown) => unknown): unknown {
    const text = reader.utf8('json');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return reader.fail('json', `invalid JSON (${(e as Error).message})`);
    }
    try {
      return check(value);
    } catch (e) {
      if (e instanceof ShapeError) {
        return reader.fail('json', e.message);
      }
      throw e;
    }
  }

  private applyMeta(reader: ByteReader): void {
    this.trace.meta = this.json(reader, checkMeta) as ReturnType<typeof checkMeta>;
    this.trace.version++;
  }

  private applyStrings(reader: ByteReader, count: number): void {
    const strings = this.trace.strings;
    this.first(reader, 'firstId', strings.count);
    const values: string[] = [];
    for (let r = 0; r < count; r++) {
      reader.record = r;
      values.push(reader.utf8('value'));
    }
    for (const value of values) {
      // Duplicates would shift ids; the producer interns, so a repeat is corruption.
      if (strings.find(value) !== undefined) {
        reader.fail('value', `string ${JSON.stringify(value.slice(0, 40))} is already interned`);
      }
      strings.intern(value);
    }
  }

  private applyStructure(reader: ByteReader): void {
    const t = this.trace;
    const payload = this.json(reader, checkStructure) as ReturnType<typeof checkStructure>;
    if (payload.firstDevice !== t.devices.length) {
      reader.fail(
        'firstDevice',
        `is ${payload.firstDevice} but ${t.devices.length} devices are held`,
      );
    }
    if (payload.firstProcess !== t.processes.length) {
      reader.fail(
        'firstProcess',
        `is ${payload.firstProcess} but ${t.processes.length} processes are held`,
      );
    }
    if (payload.firstTrack !== t.tracks.length) {
      reader.fail('firstTrack', `is ${payload.firstTrack} but ${t.tracks.length} tracks are held`);
    }
    payload.devices.forEach((d) => t.addDevice(d));
    payload.processes.forEach((p) => t.addProcess(p));
    payload.tracks.forEach((track) => t.addTrack(track));
  }

  private applyLaunches(reader: ByteReader, count: number): void {
    const launches = this.trace.launches;
    this.first(reader, 'firstId', launches.count);
    const configs: LaunchConfig[] = [];
    for (let r = 0; r < count; r++) {
      reader.record = r;
      const config: Record<string, number> = {};
      for (const field of launchConfigFields) {
        config[field] = reader.varint(field);
      }
      configs.push(config as unknown as LaunchConfig);
    }
    for (const config of configs) {
      launches.intern(config);
    }
  }

  /**
   * Sizes the op and flow columns once for what well-formed batch headers announce, instead of
   * doubling through a big load. Only batches that fit the buffer count, so a lying header
   * cannot reserve more than the input could hold; the main pass still checks everything.
   */
  private reserveFor(bytes: Uint8Array): void {
    if (!this.keepRecords) {
      return;
    }
    let ops = 0;
    let flows = 0;
    let at = 0;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    while (bytes.length - at >= batchHeaderBytes && view.getUint32(at, true) === batchMagic) {
      const count = view.getUint32(at + 8, true);
      const payloadBytes = view.getUint32(at + 12, true);
      if (payloadBytes > bytes.length - at - batchHeaderBytes || count > payloadBytes) {
        break;
      }
      const kind = view.getUint8(at + 5);
      if (kind === BatchKind.Ops) {
        ops += count;
      } else if (kind === BatchKind.Flows) {
        flows += count;
      }
      at += batchHeaderBytes + payloadBytes;
    }
    // Small live increments grow as they always did; a load of many batches is sized once.
    if (ops > maxRecordsPerBatch) {
      this.trace.ops.reserve(this.trace.ops.count + ops);
    }
    if (flows > maxRecordsPerBatch) {
      this.trace.flows.reserve(this.trace.flows.count + flows);
    }
  }

  private applyOps(reader: ByteReader, count: number): number {
    const t = this.trace;
    this.first(reader, 'firstIndex', this.recordCounts.ops);
    this.scratch ??= makeOpScratch(maxRecordsPerBatch);
    const limits = {
      tracks: t.tracks.length,
      strings: t.strings.count,
      launches: t.launches.count,
    };
    decodeOpRecords(reader, count, limits, this.scratch);
    if (this.keepRecords) {
      t.ops.appendColumns(this.scratch, count);
    } else {
      this.counted.ops += count;
    }
    return count;
  }

  private applyFlows(reader: ByteReader, count: number): void {
    const held = this.recordCounts;
    this.first(reader, 'firstIndex', held.flows);
    this.flowScratch ??= makeFlowScratch(maxRecordsPerBatch);
    decodeFlowRecords(reader, count, held.ops, this.flowScratch);
    if (this.keepRecords) {
      this.trace.flows.appendColumns(this.flowScratch, count);
    } else {
      this.counted.flows += count;
    }
  }

  private applyRanges(reader: ByteReader, count: number): void {
    const t = this.trace;
    this.first(reader, 'firstIndex', this.recordCounts.ranges);
    this.rangeScratch ??= makeRangeScratch(maxRecordsPerBatch);
    const s = this.rangeScratch;
    decodeRangeRecords(reader, count, t.tracks.length, t.strings.count, s);
    if (!this.keepRecords) {
      this.counted.ranges += count;
      return;
    }
    for (let r = 0; r < count; r++) {
      t.ranges.append({
        kind: s.kind[r] as 0 | 1 | 2,
        track: s.track[r]!,
        startNs: s.startNs[r]!,
        endNs: s.endNs[r]!,
        nameId: s.nameId[r]!,
        domainId: s.domainId[r]!,
        depth: s.depth[r]!,
      });
    }
  }

  private readEnd(reader: ByteReader): EndCounts {
    const t = this.trace;
    const counts: EndCounts = {
      strings: reader.varint('strings'),
      devices: reader.varint('devices'),
      processes: reader.varint('processes'),
      tracks: reader.varint('tracks'),
      launches: reader.varint('launches'),
      ops: reader.varint('ops'),
      flows: reader.varint('flows'),
      ranges: reader.varint('ranges'),
    };
    const held: EndCounts = {
      strings: t.strings.count,
      devices: t.devices.length,
      processes: t.processes.length,
      tracks: t.tracks.length,
      launches: t.launches.count,
      ...this.recordCounts,
    };
    for (const key of Object.keys(counts) as (keyof EndCounts)[]) {
      if (counts[key] !== held[key]) {
        reader.fail(
          key,
          `end batch says ${counts[key]} but ${held[key]} were received: records are missing`,
        );
      }
    }
    return counts;
  }
}

/** Reads a whole trace file written by `saveTrace`; throws CodecError if it is corrupt or truncated. */
export function loadTrace(bytes: Uint8Array): Trace {
  if (bytes.length === 0) {
    throw new CodecError('empty file: not a streamscope trace', 0);
  }
  const decoder = new TraceDecoder();
  const result = decoder.apply(bytes);
  if (result.end === undefined) {
    throw new CodecError(
      `no end batch after ${result.batches} batches (${bytes.length} bytes): the file is truncated`,
      bytes.length,
    );
  }
  decoder.trace.ops.trim();
  return decoder.trace;
}
