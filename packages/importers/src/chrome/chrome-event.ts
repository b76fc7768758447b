import type { ByteStrings } from './byte-strings.ts';
import type { Json } from './chrome-metadata.ts';
import { isObject } from './chrome-metadata.ts';

/** A value the importer reads as an id or a count: a JSON number or string, else undefined. */
export type IdValue = number | string | undefined;

const noBytes = new Uint8Array(0);
const utf8 = new TextDecoder();

/**
 * The fields of one Chrome trace event that the importer reads, filled either by the byte
 * scanner (event-scanner.ts) straight from the input or from a JSON.parse'd event
 * (`fillFromParsed`); both fill it alike, so everything downstream reads one shape. A field
 * holds what `event[key]` would: strings and numbers as JSON.parse gives them, any other JSON
 * value (null, booleans, arrays, objects) as undefined, which every reader treats as absent.
 * `ts` and `dur` stay byte ranges of `bytes` (their values are read exactly by EventTimes).
 */
export class ChromeEvent {
  /** The bytes the ranges below index: the input chunk (scanner) or the event's own text. */
  bytes: Uint8Array = noBytes;
  ph: string | undefined = undefined;
  cat: string | undefined = undefined;
  private nameValue: string | undefined = undefined;
  /** The scanner leaves `name` as the byte range of a plain string, decoded when first read. */
  private nameStart = -1;
  private nameEnd = -1;
  private nameStrings: ByteStrings | undefined = undefined;
  /** The ByteStrings entry of the name read from bytes, or -1 (see `nameEntry`). */
  private nameEntryValue = -1;
  pid: IdValue = undefined;
  tid: IdValue = undefined;
  /**
   * Where the values of `id` (a flow's, an async event's) and `bp` (a flow end's binding point)
   * stand in `bytes`, or -1: read only for the few files that need them (see `flowId`).
   */
  idAt = -1;
  idEnd = -1;
  bpAt = -1;
  bpEnd = -1;
  /**
   * Where `args` stands in `bytes` when the scanner read it as an object, or -1: for the rare
   * event that needs an arg of its not kept below (see `otherArg`).
   */
  argsAt = -1;
  argsEnd = -1;
  /** The value of `ts` in `bytes` (a string keeps its quotes), or -1 without one. */
  tsAt = -1;
  tsEnd = -1;
  durAt = -1;
  durEnd = -1;
  /**
   * `ts` and `dur` as whole µs and the ns below them, where the scanner read them in passing
   * (plain decimals: see plainMicrosEnd); -1 µs where it did not (EventTimes reads the bytes).
   */
  tsUs = -1;
  tsNs = 0;
  durUs = -1;
  durNs = 0;
  // args.*: read only when `args` is an object.
  device: IdValue = undefined;
  stream: IdValue = undefined;
  context: IdValue = undefined;
  correlation: IdValue = undefined;
  bytesArg: IdValue = undefined;
  size: IdValue = undefined;
  recordCorrelation: IdValue = undefined;
  sharedMemory: IdValue = undefined;
  registers: IdValue = undefined;
  memcpyDetails: IdValue = undefined;
  kernelDetails: IdValue = undefined;
  /** args.grid[0..2] and args.block[0..2]; undefined where not an array or not a number/string. */
  gridX: IdValue = undefined;
  gridY: IdValue = undefined;
  gridZ: IdValue = undefined;
  blockX: IdValue = undefined;
  blockY: IdValue = undefined;
  blockZ: IdValue = undefined;
  /** The JSON.parse'd event when it came that way (metadata events always do), else undefined. */
  parsed: Json | undefined = undefined;

  get name(): string | undefined {
    if (this.nameStart >= 0) {
      const strings = this.nameStrings!;
      this.nameValue = strings.get(this.bytes, this.nameStart, this.nameEnd);
      this.nameEntryValue = strings.lastEntry;
      this.nameStart = -1;
    }
    return this.nameValue;
  }

  set name(value: string | undefined) {
    this.nameValue = value;
    this.nameStart = -1;
    this.nameEntryValue = -1;
  }

  /**
   * After `name` was read: the scanner's ByteStrings entry of that string (the same entry for the
   * same name throughout an import), or -1 when it has none (a parsed event, a long name).
   */
  get nameEntry(): number {
    return this.nameEntryValue;
  }

  /** `name` is the plain string `bytes[start, end)`, interned by `strings` when read. */
  nameAt(start: number, end: number, strings: ByteStrings): void {
    this.nameStart = start;
    this.nameEnd = end;
    this.nameStrings = strings;
  }

  /** The event's `id` (a number or a string), or undefined. */
  flowId(): IdValue {
    if (this.parsed !== undefined) {
      return idValue(this.parsed['id']);
    }
    return this.idAt < 0
      ? undefined
      : idValue(JSON.parse(utf8.decode(this.bytes.subarray(this.idAt, this.idEnd))));
  }

  /**
   * `args[key]` as JSON.parse gives it, for a key the fields above do not keep; undefined without
   * one. Slow: it parses the event's `args` each time, so only the few events that need it call it.
   */
  otherArg(key: string): unknown {
    const args =
      this.parsed !== undefined
        ? this.parsed['args']
        : this.argsAt < 0
          ? undefined
          : (JSON.parse(utf8.decode(this.bytes.subarray(this.argsAt, this.argsEnd))) as unknown);
    return isObject(args) ? args[key] : undefined;
  }

  /** Whether `bp` is "e": a flow end bound to the slice enclosing it. */
  bindsEnclosing(): boolean {
    if (this.parsed !== undefined) {
      return this.parsed['bp'] === 'e';
    }
    return this.bpEnd - this.bpAt === 3 && this.bytes[this.bpAt + 1] === 0x65;
  }

  reset(bytes: Uint8Array): void {
    this.bytes = bytes;
    this.ph = this.cat = this.nameValue = undefined;
    this.nameStart = this.nameEntryValue = -1;
    this.pid = this.tid = undefined;
    this.idAt = this.idEnd = this.bpAt = this.bpEnd = this.argsAt = this.argsEnd = -1;
    this.tsAt = this.tsEnd = this.durAt = this.durEnd = -1;
    this.tsUs = this.durUs = -1;
    this.resetArgs();
    this.parsed = undefined;
  }

  resetArgs(): void {
    this.device = this.stream = this.context = this.correlation = undefined;
    this.bytesArg = this.size = this.recordCorrelation = undefined;
    this.sharedMemory = this.registers = this.memcpyDetails = this.kernelDetails = undefined;
    this.gridX = this.gridY = this.gridZ = undefined;
    this.blockX = this.blockY = this.blockZ = undefined;
  }
}

function idValue(value: unknown): IdValue {
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Fills `e` from a JSON.parse'd event whose text is `bytes`; `tsAt`…`durEnd` are set by the
 * caller (EventTimes locates them in the text).
 */
export function fillFromParsed(e: ChromeEvent, value: Json, bytes: Uint8Array): void {
  e.reset(bytes);
  e.parsed = value;
  e.ph = text(value['ph']);
  e.cat = text(value['cat']);
  e.name = text(value['name']);
  e.pid = idValue(value['pid']);
  e.tid = idValue(value['tid']);
  const args = value['args'];
  if (!isObject(args)) {
    return;
  }
  e.device = idValue(args['device']);
  e.stream = idValue(args['stream']);
  e.context = idValue(args['context']);
  e.correlation = idValue(args['correlation'] ?? args['correlation_id'] ?? args['correlationId']);
  e.bytesArg = idValue(args['bytes']);
  e.size = idValue(args['size']);
  e.recordCorrelation = idValue(args['wait_on_cuda_event_record_corr_id']);
  e.sharedMemory = idValue(args['shared memory']);
  e.registers = idValue(args['registers per thread']);
  e.memcpyDetails = idValue(args['memcpy_details']);
  e.kernelDetails = idValue(args['kernel_details']);
  const grid = args['grid'];
  if (Array.isArray(grid)) {
    e.gridX = idValue(grid[0]);
    e.gridY = idValue(grid[1]);
    e.gridZ = idValue(grid[2]);
  }
  const block = args['block'];
  if (Array.isArray(block)) {
    e.blockX = idValue(block[0]);
    e.blockY = idValue(block[1]);
    e.blockZ = idValue(block[2]);
  }
}
