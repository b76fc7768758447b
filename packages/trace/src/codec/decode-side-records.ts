import type { FlowColumns, RangeColumns } from '../side-tables.ts';
import type { ByteReader } from './byte-reader.ts';

export type FlowScratch = Omit<FlowColumns, 'count'>;
export type RangeScratch = Omit<RangeColumns, 'count'>;

export function makeFlowScratch(capacity: number): FlowScratch {
  return {
    fromOp: new Uint32Array(capacity),
    toOp: new Uint32Array(capacity),
    kind: new Uint8Array(capacity),
  };
}

export function makeRangeScratch(capacity: number): RangeScratch {
  return {
    startNs: new Float64Array(capacity),
    endNs: new Float64Array(capacity),
    track: new Uint16Array(capacity),
    nameId: new Uint32Array(capacity),
    domainId: new Uint32Array(capacity),
    depth: new Uint8Array(capacity),
    kind: new Uint8Array(capacity),
  };
}

/**
 * Reads `count` flow records (kind u8, fromOp varint, toOp − fromOp zigzag) into `s`, each end
 * an op among the `opCount` held. Nothing is kept: the caller keeps a batch that read whole.
 */
export function decodeFlowRecords(
  reader: ByteReader,
  count: number,
  opCount: number,
  s: FlowScratch,
): void {
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
}

/**
 * Reads `count` range records (kind, track, startNs delta, durNs, nameId, domainId, depth) into
 * `s`, each naming a track among `trackCount` and strings among `stringCount`.
 */
export function decodeRangeRecords(
  reader: ByteReader,
  count: number,
  trackCount: number,
  stringCount: number,
  s: RangeScratch,
): void {
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
    s.kind[r] = kind;
    s.track[r] = track;
    s.startNs[r] = startNs;
    s.endNs[r] = endNs;
    s.nameId[r] = nameId;
    s.domainId[r] = domainId;
    s.depth[r] = reader.u8('depth');
  }
}
