import { keepShape } from '../shape-keeper.ts';

/** Fields of nsys JSON events that the importer reads; the rest are skipped unparsed. */
export const fieldNames = [
  'Type',
  'startNs',
  'endNs',
  'correlationId',
  'deviceId',
  'contextId',
  'streamId',
  'globalPid',
  'globalTid',
  'eventClass',
  'name',
  'demangledName',
  'shortName',
  'gridX',
  'gridY',
  'gridZ',
  'blockX',
  'blockY',
  'blockZ',
  'staticSharedMemory',
  'dynamicSharedMemory',
  'registersPerThread',
  'graphNodeId',
  'sizebytes',
  'copyKind',
  'srcKind',
  'dstKind',
  'memKind',
  'eventId',
  'eventSyncId',
  'syncType',
  'graphId',
  'graphExecId',
  'Timestamp',
  'EndTimestamp',
  'Text',
  'TextId',
  'GlobalTid',
  'EndGlobalTid',
  'DomainId',
  'GlobalPid',
  'Commname',
  'Command',
  // sub-objects: which one a CudaEvent carries decides what it is
  'kernel',
  'memcpy',
  'memset',
  'sync',
  'cudaEventRecord',
  'graph',
] as const;

export type FieldName = (typeof fieldNames)[number];
export const F = Object.fromEntries(fieldNames.map((name, i) => [name, i])) as Record<
  FieldName,
  number
>;

/** The hash the scanner computes over a key's bytes (ASCII): h = h·31 + c, as int32. */
export function hashAscii(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) {
    h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  }
  return h;
}

/** Key hash → field id; a second map checks the length so that a colliding unknown key is skipped. */
export const fieldByHash = new Map<number, number>(
  fieldNames.map((name, i) => [hashAscii(name), i]),
);
export const fieldLength = fieldNames.map((name) => name.length);

/**
 * The same lookup as an open-addressed typed table, for the byte scanner's hot loop:
 * slot = hash & mask, probing on; `fieldSlotHash` holds the full hash, `fieldSlotId` the id + 1.
 */
export const fieldSlotMask = 1023;
export const fieldSlotHash = new Int32Array(fieldSlotMask + 1);
export const fieldSlotId = new Int32Array(fieldSlotMask + 1);
fieldNames.forEach((name, id) => {
  const h = hashAscii(name);
  let slot = h & fieldSlotMask;
  while (fieldSlotId[slot] !== 0) {
    slot = (slot + 1) & fieldSlotMask;
  }
  fieldSlotHash[slot] = h;
  fieldSlotId[slot] = id + 1;
});

/** Field id for a key hash and length, or -1. */
export function fieldFor(h: number, length: number): number {
  let slot = h & fieldSlotMask;
  for (;;) {
    const id = fieldSlotId[slot]!;
    if (id === 0) {
      return -1;
    }
    if (fieldSlotHash[slot] === h) {
      return fieldLength[id - 1] === length ? id - 1 : -1;
    }
    slot = (slot + 1) & fieldSlotMask;
  }
}

/**
 * One event's fields, reused for every line: numbers in `num`, strings as byte ranges of the
 * line (fast path) or as text (JSON.parse path). A field is present when `seen[f] === gen`;
 * its byte range, text or exact big-integer text only when their own generation matches too,
 * so the fast path writes two slots per field and never clears anything.
 */
export class NsysRecord {
  readonly num = new Float64Array(fieldNames.length);
  readonly seen = new Uint32Array(fieldNames.length);
  readonly strStart = new Int32Array(fieldNames.length);
  readonly strEnd = new Int32Array(fieldNames.length);
  readonly strGen = new Uint32Array(fieldNames.length);
  private readonly text: (string | undefined)[] = new Array<string | undefined>(fieldNames.length);
  private readonly textGen = new Uint32Array(fieldNames.length);
  /** Exact decimal text of 64-bit ids above 2^53 (only from the JSON.parse path). */
  private readonly bigText: (string | undefined)[] = new Array<string | undefined>(
    fieldNames.length,
  );
  private readonly bigGen = new Uint32Array(fieldNames.length);
  /** Field id of the sub-object (kernel, memcpy, …), or -1. */
  sub = -1;
  gen = 1;
  /** The line bytes that `strStart/strEnd` index (fast path), and a view of them for word reads. */
  bytes: Uint8Array = new Uint8Array(0);
  view = new DataView(this.bytes.buffer);

  /** Points the record at the bytes the next line is read from. */
  readFrom(bytes: Uint8Array): void {
    if (bytes !== this.bytes) {
      this.bytes = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
  }

  reset(): void {
    this.gen = (this.gen + 1) >>> 0 || 1;
    this.sub = -1;
  }

  has(field: number): boolean {
    return this.seen[field] === this.gen;
  }

  /** The field as a number, or `fallback` when absent or not numeric. */
  get(field: number, fallback = 0): number {
    if (this.seen[field] !== this.gen) {
      return fallback;
    }
    const value = this.num[field]!;
    return Number.isNaN(value) ? fallback : value;
  }

  /** The field's text from the JSON.parse path, if it was a non-numeric string there. */
  textOf(field: number): string | undefined {
    return this.textGen[field] === this.gen ? this.text[field] : undefined;
  }

  /** The exact decimal text of an integer above 2^53 (JSON.parse path only). */
  bigOf(field: number): string | undefined {
    return this.bigGen[field] === this.gen ? this.bigText[field] : undefined;
  }

  /** True when the fast path kept the field as a byte range `strStart..strEnd` of `bytes`. */
  hasRange(field: number): boolean {
    return this.strGen[field] === this.gen;
  }

  setNumber(field: number, value: number): void {
    this.seen[field] = this.gen;
    this.num[field] = value;
  }

  setBig(field: number, decimal: string): void {
    this.setNumber(field, Number(decimal));
    this.bigGen[field] = this.gen;
    this.bigText[field] = decimal;
  }

  setText(field: number, value: string): void {
    this.seen[field] = this.gen;
    this.num[field] = Number.NaN;
    this.textGen[field] = this.gen;
    this.text[field] = value;
  }
}

keepShape(new NsysRecord());
