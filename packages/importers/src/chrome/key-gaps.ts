import { sameWords } from '../io/json-bytes.ts';
import { keepShape } from '../shape-keeper.ts';

/** Distinct keys given ids; past these, an object's keys are read without predictions. */
const maxKeys = 128;
/** Keys longer than this get no id. */
const maxKeyBytes = 64;
const keySlots = 256;
/** Predictions per key: one for each of this many contexts (an event's `ph`, its `cat`). */
export const gapContexts = 16;
/** The prediction context of an event's keys: its one-letter `ph`, 0 for any other. */
export function phContext(ph: string | undefined): number {
  return ph !== undefined && ph.length === 1 ? ph.charCodeAt(0) & (gapContexts - 1) : 0;
}

/** Gaps longer than this (much whitespace) are not kept. */
const maxGapBytes = 64;

/** The state before an object's first key: its gap starts at the `{`. */
export const objectStart = maxKeys;
/** The key id of a gap that closes the object (`}`). */
export const objectEnd = maxKeys + 1;

/**
 * What follows each key's value in the objects of a Chrome trace, learned as they are read.
 * A gap is the bytes between one value's end and the next value's start (`,"cat":`, or
 * `,\n  "cat": ` in a pretty-printed file), or the closing `}`. Exporters write an event's keys
 * in the same order every time, so after, say, `tid` the next gap is almost always the one that
 * followed `tid` last time: the scanner compares that gap's bytes where it stands, four at a
 * time, and knows the next key (and that the commas, quotes and colon are right) without reading
 * the key. Predictions are kept per context (the event's `ph` for its keys, its `cat` for those
 * of `args`), since a kernel's args follow each other differently from an operator's.
 *
 * Keys get ids by their raw bytes, with the kind `classify` gives them; only ever a shortcut: a
 * gap that differs is read byte by byte and becomes the prediction.
 */
export class KeyGaps {
  /** The kind of each key id (the scanner's TopKey or ArgKey). */
  readonly kinds = new Int8Array(maxKeys);
  /** Per state and context (`state * gapContexts + context`): the gap's length, 0 = none. */
  readonly gapLength = new Int32Array((maxKeys + 1) * gapContexts);
  /** The key id after that gap, or objectEnd. */
  readonly nextKey = new Int32Array((maxKeys + 1) * gapContexts);
  /** The gaps' bytes, `maxGapBytes` for each state and context. */
  private readonly gapBytes = new Uint8Array((maxKeys + 1) * gapContexts * maxGapBytes);
  readonly gapView = new DataView(this.gapBytes.buffer);
  private readonly slots = new Int32Array(keySlots);
  private readonly keyLength = new Int32Array(maxKeys);
  private readonly keyBytes = new Uint8Array(maxKeys * maxKeyBytes);
  private keys = 0;

  /** @param classify the kind of a key by its raw bytes (also for keys that get no id). */
  constructor(readonly classify: (buf: Uint8Array, at: number, length: number) => number) {}

  /** Whether the gap predicted for `slot` (`state * gapContexts + context`) is at `view[i]`. */
  matches(view: DataView, i: number, end: number, slot: number): boolean {
    const length = this.gapLength[slot]!;
    return (
      length !== 0 &&
      i + length <= end &&
      sameWords(view, i, this.gapView, slot * maxGapBytes, length)
    );
  }

  /** The length of the gap predicted for `slot` (valid after `matches` said yes). */
  lengthOf(slot: number): number {
    return this.gapLength[slot]!;
  }

  /** Keeps `buf[from, to)` as the gap after `slot`, followed by key `next`. */
  learn(slot: number, buf: Uint8Array, from: number, to: number, next: number): void {
    const length = to - from;
    if (slot < 0 || length > maxGapBytes) {
      return;
    }
    const at = slot * maxGapBytes - from;
    for (let k = from; k < to; k++) {
      this.gapBytes[at + k] = buf[k]!;
    }
    this.gapLength[slot] = length;
    this.nextKey[slot] = next;
  }

  /** The id of the key `buf[at, at + length)`, or -1 when it gets none (the caller classifies it). */
  idOf(buf: Uint8Array, at: number, length: number): number {
    if (length > maxKeyBytes) {
      return -1;
    }
    let hash = length;
    for (let k = 0; k < length; k++) {
      hash = (Math.imul(hash, 31) + buf[at + k]!) | 0;
    }
    let slot = hash & (keySlots - 1);
    for (;;) {
      const id = this.slots[slot]! - 1;
      if (id < 0) {
        break;
      }
      if (this.keyLength[id] === length && this.sameKey(id, buf, at)) {
        return id;
      }
      slot = (slot + 1) & (keySlots - 1);
    }
    const id = this.keys;
    if (id >= maxKeys) {
      return -1;
    }
    this.keys = id + 1;
    this.slots[slot] = id + 1;
    this.keyLength[id] = length;
    this.keyBytes.set(buf.subarray(at, at + length), id * maxKeyBytes);
    this.kinds[id] = this.classify(buf, at, length);
    return id;
  }

  private sameKey(id: number, buf: Uint8Array, at: number): boolean {
    const start = id * maxKeyBytes;
    const length = this.keyLength[id]!;
    for (let k = 0; k < length; k++) {
      if (this.keyBytes[start + k] !== buf[at + k]) {
        return false;
      }
    }
    return true;
  }
}

keepShape(new KeyGaps(() => 0));
