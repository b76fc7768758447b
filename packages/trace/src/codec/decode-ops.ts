import { isValidOpKind, OpKind } from '../op-kind.ts';
import type { OpColumns } from '../op-table.ts';
import { noRef } from '../op-table.ts';
import type { ByteReader } from './byte-reader.ts';
import { checkedVarint, fastVarint, unzigzag, varintEnd } from './byte-reader.ts';
import { OpField } from './batch-format.ts';

export type OpScratch = Omit<OpColumns, 'count'>;

/** What op records may name: how many tracks, strings and launch configs are held. */
export interface OpRecordLimits {
  readonly tracks: number;
  readonly strings: number;
  readonly launches: number;
}

export function makeOpScratch(capacity: number): OpScratch {
  return {
    startNs: new Float64Array(capacity),
    endNs: new Float64Array(capacity),
    bytes: new Float64Array(capacity),
    track: new Uint16Array(capacity),
    nameId: new Uint32Array(capacity),
    correlationId: new Uint32Array(capacity),
    refId: new Uint32Array(capacity),
    kind: new Uint8Array(capacity),
    memKinds: new Uint8Array(capacity),
    flags: new Uint8Array(capacity),
  };
}

/**
 * Reads `count` op records (the layout is in trace-encoder.ts) into `s`, checking every field
 * against what is held (`limits`). Nothing is appended: the caller appends only a batch that read whole.
 * The position lives in a local (`at`) and goes back to the reader before any failure, so the
 * errors name the same byte as the reader's own checks.
 */
export function decodeOpRecords(
  reader: ByteReader,
  count: number,
  limits: OpRecordLimits,
  s: OpScratch,
): void {
  const trackCount = limits.tracks;
  const stringCount = limits.strings;
  const launchCount = limits.launches;
  const bytes = reader.bytes;
  const end = reader.end;
  let at = reader.at;
  let prevStartNs = 0;
  let prevCorrelation = 0;
  let track = -1;
  let v = 0;
  for (let r = 0; r < count; r++) {
    reader.record = r;
    if (end - at < 2) {
      // The checked reads, in order, name what is missing.
      reader.at = at;
      if (!isValidOpKind(reader.u8('kind'))) {
        reader.fail('kind', `unknown op kind ${bytes[at]}`);
      }
      reader.u8('fields');
    }
    const kind = bytes[at]!;
    if (!isValidOpKind(kind)) {
      reader.at = at + 1;
      reader.fail('kind', `unknown op kind ${kind}`);
    }
    const mask = bytes[at + 1]!;
    at += 2;
    if ((mask & OpField.SameTrack) === 0) {
      v = fastVarint(bytes, at, end);
      track = v >= 0 ? v : checkedVarint(reader, at, 'track');
      at = varintEnd;
      if (track >= trackCount) {
        reader.at = at;
        reader.fail('track', `track ${track} does not exist (${trackCount} tracks)`);
      }
    } else if (track < 0) {
      reader.at = at;
      reader.fail('track', 'first record of a batch cannot repeat the previous track');
    }
    v = fastVarint(bytes, at, end);
    const startNs = prevStartNs + unzigzag(v >= 0 ? v : checkedVarint(reader, at, 'startNs'));
    at = varintEnd;
    prevStartNs = startNs;
    v = fastVarint(bytes, at, end);
    const durNs = v >= 0 ? v : checkedVarint(reader, at, 'durNs');
    at = varintEnd;
    v = fastVarint(bytes, at, end);
    const nameId = v >= 0 ? v : checkedVarint(reader, at, 'nameId');
    at = varintEnd;
    if (nameId >= stringCount) {
      reader.at = at;
      reader.fail('nameId', `string ${nameId} does not exist (${stringCount} strings)`);
    }
    s.kind[r] = kind;
    s.track[r] = track;
    s.startNs[r] = startNs;
    s.endNs[r] = startNs + durNs;
    s.nameId[r] = nameId;
    if ((mask & OpField.Bytes) !== 0) {
      v = fastVarint(bytes, at, end);
      s.bytes[r] = v >= 0 ? v : checkedVarint(reader, at, 'bytes');
      at = varintEnd;
    } else {
      s.bytes[r] = 0;
    }
    if ((mask & OpField.MemKinds) !== 0) {
      reader.at = at;
      s.memKinds[r] = reader.u8('memKinds');
      at = reader.at;
    } else {
      s.memKinds[r] = 0;
    }
    if ((mask & OpField.Correlation) !== 0) {
      v = fastVarint(bytes, at, end);
      prevCorrelation += unzigzag(v >= 0 ? v : checkedVarint(reader, at, 'correlationId'));
      at = varintEnd;
      if (prevCorrelation < 0 || prevCorrelation > 0xffffffff) {
        reader.at = at;
        reader.fail('correlationId', `value ${prevCorrelation} is outside uint32`);
      }
      s.correlationId[r] = prevCorrelation;
    } else {
      s.correlationId[r] = 0;
    }
    if ((mask & OpField.Ref) !== 0) {
      v = fastVarint(bytes, at, end);
      const refId = v >= 0 ? v : checkedVarint(reader, at, 'refId');
      at = varintEnd;
      if (refId >= noRef) {
        reader.at = at;
        reader.fail('refId', `value ${refId} is outside uint32`);
      }
      if (kind === OpKind.Kernel && refId >= launchCount) {
        reader.at = at;
        reader.fail('refId', `launch config ${refId} does not exist (${launchCount} configs)`);
      }
      s.refId[r] = refId;
    } else {
      s.refId[r] = noRef;
    }
    if ((mask & OpField.Flags) !== 0) {
      reader.at = at;
      s.flags[r] = reader.u8('flags');
      at = reader.at;
    } else {
      s.flags[r] = 0;
    }
  }
  reader.at = at;
}
