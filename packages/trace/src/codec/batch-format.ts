/**
 * The record stream: a sequence of batches, each a 16-byte header and a payload.
 *
 *   offset 0  u32  magic 'SSB1' (bytes 53 53 42 31)
 *          4  u8   codec version
 *          5  u8   batch kind (BatchKind)
 *          6  u16  reserved, 0
 *          8  u32  record count
 *         12  u32  payload length in bytes
 *         16  ...  payload
 *
 * Integers in payloads are LEB128 varints (zigzag where signed); times are integer ns since
 * the trace origin. Every table batch starts with the index of its first record, which must
 * equal the receiver's count: a gap or a repeat is an error, not silent corruption.
 */
export const batchMagic = 0x31425353;
export const codecVersion = 1;
export const batchHeaderBytes = 16;
/** Upper bound on records per batch, so a decoder can work in bounded steps. */
export const maxRecordsPerBatch = 32768;
/** Upper bound on one batch's payload, so a corrupt length cannot ask for gigabytes. */
export const maxPayloadBytes = 64 * 1024 * 1024;

export const BatchKind = {
  Meta: 1,
  Strings: 2,
  Structure: 3,
  Launches: 4,
  Ops: 5,
  Flows: 6,
  Ranges: 7,
  End: 8,
} as const;
export type BatchKind = (typeof BatchKind)[keyof typeof BatchKind];

const batchKindNames: Record<number, string> = {
  1: 'meta',
  2: 'strings',
  3: 'structure',
  4: 'launches',
  5: 'ops',
  6: 'flows',
  7: 'ranges',
  8: 'end',
};

export function batchKindName(kind: number): string {
  return batchKindNames[kind] ?? `unknown(${kind})`;
}

/** Op record field-presence bits (second byte of each op record). */
export const OpField = {
  Bytes: 1,
  MemKinds: 2,
  Correlation: 4,
  Ref: 8,
  Flags: 16,
  SameTrack: 32,
} as const;
