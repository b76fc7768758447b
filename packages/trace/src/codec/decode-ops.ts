import { isValidOpKind, OpKind } from '../op-kind.ts';
import type { OpColumns } from '../op-table.ts';
import { noRef } from '../op-table.ts';
import type { Trace } from '../trace.ts';
import type { ByteReader } from './byte-reader.ts';
import { OpField } from './batch-format.ts';

export type OpScratch = Omit<OpColumns, 'count'>;

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
 * against what `t` holds. Nothing is appended: the caller appends only a batch that read whole.
 */
export function decodeOpRecords(reader: ByteReader, count: number, t: Trace, s: OpScratch): void {
  const trackCount = t.tracks.length;
  const stringCount = t.strings.count;
  const launchCount = t.launches.count;
  let prevStartNs = 0;
  let prevCorrelation = 0;
  let track = -1;
  for (let r = 0; r < count; r++) {
    reader.record = r;
    const kind = reader.u8('kind');
    if (!isValidOpKind(kind)) {
      reader.fail('kind', `unknown op kind ${kind}`);
    }
    const mask = reader.u8('fields');
    if ((mask & OpField.SameTrack) === 0) {
      track = reader.varint('track');
      if (track >= trackCount) {
        reader.fail('track', `track ${track} does not exist (${trackCount} tracks)`);
      }
    } else if (track < 0) {
      reader.fail('track', 'first record of a batch cannot repeat the previous track');
    }
    const startNs = prevStartNs + reader.zigzag('startNs');
    prevStartNs = startNs;
    const durNs = reader.varint('durNs');
    const nameId = reader.varint('nameId');
    if (nameId >= stringCount) {
      reader.fail('nameId', `string ${nameId} does not exist (${stringCount} strings)`);
    }
    s.kind[r] = kind;
    s.track[r] = track;
    s.startNs[r] = startNs;
    s.endNs[r] = startNs + durNs;
    s.nameId[r] = nameId;
    s.bytes[r] = (mask & OpField.Bytes) !== 0 ? reader.varint('bytes') : 0;
    s.memKinds[r] = (mask & OpField.MemKinds) !== 0 ? reader.u8('memKinds') : 0;
    if ((mask & OpField.Correlation) !== 0) {
      prevCorrelation += reader.zigzag('correlationId');
      if (prevCorrelation < 0 || prevCorrelation > 0xffffffff) {
        reader.fail('correlationId', `value ${prevCorrelation} is outside uint32`);
      }
      s.correlationId[r] = prevCorrelation;
    } else {
      s.correlationId[r] = 0;
    }
    if ((mask & OpField.Ref) !== 0) {
      const refId = reader.varint('refId');
      if (refId >= noRef) {
        reader.fail('refId', `value ${refId} is outside uint32`);
      }
      if (kind === OpKind.Kernel && refId >= launchCount) {
        reader.fail('refId', `launch config ${refId} does not exist (${launchCount} configs)`);
      }
      s.refId[r] = refId;
    } else {
      s.refId[r] = noRef;
    }
    s.flags[r] = (mask & OpField.Flags) !== 0 ? reader.u8('flags') : 0;
  }
}
