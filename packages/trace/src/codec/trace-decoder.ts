import type { FlowColumns, LaunchConfig } from '../side-tables.ts';
import { launchConfigFields } from '../side-tables.ts';
import { Trace } from '../trace.ts';
import { ByteReader } from './byte-reader.ts';
import { CodecError } from './codec-error.ts';
import type { OpScratch } from './decode-ops.ts';
import { decodeOpRecords, makeOpScratch } from './decode-ops.ts';
import {
  BatchKind,
  batchHeaderBytes,
  batchKindName,
  batchMagic,
  codecVersion,
  maxPayloadBytes,
  maxRecordsPerBatch,
} from './batch-format.ts';
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

/**
 * Applies record-stream batches to a trace. Each batch is validated whole before any of it is
 * applied, so a corrupt batch leaves the trace as it was; the error names the batch, the
 * record, the field and the byte. Nothing is ever read outside the given buffer.
 */
export class TraceDecoder {
  readonly trace: Trace;
  private batchIndex = 0;
  private scratch: OpScratch | undefined;
  private flowScratch: Omit<FlowColumns, 'count'> | undefined;

  constructor(trace: Trace = new Trace()) {
    this.trace = trace;
  }

  apply(bytes: Uint8Array): ApplyResult {
    this.reserveFor(bytes);
    let at = 0;
    let batches = 0;
    let opsAdded = 0;
    let end: EndCounts | undefined;
    while (at < bytes.length) {
      if (end !== undefined) {
        throw new CodecError(`data follows the end batch at byte ${at}`, at);
      }
      const index = this.batchIndex;
      if (bytes.length - at < batchHeaderBytes) {
        throw new CodecError(
          `batch ${index}: header truncated (${bytes.length - at} of ${batchHeaderBytes} bytes) at byte ${at}`,
          at,
        );
      }
      const view = new DataView(bytes.buffer, bytes.byteOffset + at, batchHeaderBytes);
      const magic = view.getUint32(0, true);
      if (magic !== batchMagic) {
        throw new CodecError(
          `batch ${index}: bad magic 0x${magic.toString(16).padStart(8, '0')} at byte ${at} (not a streamscope record stream, or misaligned)`,
          at,
        );
      }
      const version = view.getUint8(4);
      if (version !== codecVersion) {
        throw new CodecError(
          `batch ${index}: codec version ${version} at byte ${at}; this build reads version ${codecVersion}`,
          at,
        );
      }
      const kind = view.getUint8(5);
      const count = view.getUint32(8, true);
      const payloadBytes = view.getUint32(12, true);
      const name = batchKindName(kind);
      const payloadStart = at + batchHeaderBytes;
      if (payloadBytes > maxPayloadBytes || payloadBytes > bytes.length - payloadStart) {
        throw new CodecError(
          `batch ${index} (${name}): payload of ${payloadBytes} bytes runs past the end of the buffer (${bytes.length - payloadStart} left) at byte ${payloadStart}: truncated`,
          payloadStart,
        );
      }
      if (count > maxRecordsPerBatch && kind !== BatchKind.End) {
        throw new CodecError(
          `batch ${index} (${name}): record count ${count} exceeds ${maxRecordsPerBatch} at byte ${at + 8}`,
          at + 8,
        );
      }
      const payloadEnd = payloadStart + payloadBytes;
      const reader = new ByteReader(bytes, payloadStart, payloadEnd, (record) =>
        record < 0 ? `batch ${index} (${name})` : `batch ${index} (${name}), record ${record}`,
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
            `batch ${index}: unknown batch kind ${kind} at byte ${at + 5}`,
            at + 5,
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
    this.first(reader, 'firstIndex', this.trace.ops.count);
    this.scratch ??= makeOpScratch(maxRecordsPerBatch);
    decodeOpRecords(reader, count, this.trace, this.scratch);
    this.trace.ops.appendColumns(this.scratch, count);
    return count;
  }

  private applyFlows(reader: ByteReader, count: number): void {
    const t = this.trace;
    this.first(reader, 'firstIndex', t.flows.count);
    const opCount = t.ops.count;
    this.flowScratch ??= {
      fromOp: new Uint32Array(maxRecordsPerBatch),
      toOp: new Uint32Array(maxRecordsPerBatch),
      kind: new Uint8Array(maxRecordsPerBatch),
    };
    const s = this.flowScratch;
    for (let r = 0; r < count; r++) {
      reader.record = r;
      const kind = reader.u8('kind');
      if (kind > 2) {
        reader.fail('kind', `unknown flow kind ${kind}`);
      }
      const fromOp = reader.varint('fromOp');
      const toOp = fromOp + reader.zigzag('toOp');
      if (fromOp >= opCount) {
        reader.fail('fromOp', `op ${fromOp} does not exist (${opCount} ops)`);
      }
      if (toOp < 0 || toOp >= opCount) {
        reader.fail('toOp', `op ${toOp} does not exist (${opCount} ops)`);
      }
      s.kind[r] = kind;
      s.fromOp[r] = fromOp;
      s.toOp[r] = toOp;
    }
    t.flows.appendColumns(s, count);
  }

  private applyRanges(reader: ByteReader, count: number): void {
    const t = this.trace;
    this.first(reader, 'firstIndex', t.ranges.count);
    const trackCount = t.tracks.length;
    const stringCount = t.strings.count;
    const records: Parameters<typeof t.ranges.append>[0][] = [];
    let prevStartNs = 0;
    for (let r = 0; r < count; r++) {
      reader.record = r;
      const kind = reader.u8('kind');
      if (kind > 2) {
        reader.fail('kind', `unknown range kind ${kind}`);
      }
      const track = reader.varint('track');
      if (track >= trackCount) {
        reader.fail('track', `track ${track} does not exist (${trackCount} tracks)`);
      }
      const startNs = prevStartNs + reader.zigzag('startNs');
      prevStartNs = startNs;
      const endNs = startNs + reader.varint('durNs');
      const nameId = reader.varint('nameId');
      const domainId = reader.varint('domainId');
      if (nameId >= stringCount || domainId >= stringCount) {
        reader.fail(
          nameId >= stringCount ? 'nameId' : 'domainId',
          `string does not exist (${stringCount} strings)`,
        );
      }
      const depth = reader.u8('depth');
      records.push({ kind: kind as 0 | 1 | 2, track, startNs, endNs, nameId, domainId, depth });
    }
    records.forEach((range) => t.ranges.append(range));
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
      ops: t.ops.count,
      flows: t.flows.count,
      ranges: t.ranges.count,
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
