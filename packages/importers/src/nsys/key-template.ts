import { keepShape } from '../shape-keeper.ts';

/**
 * Entries per key in a template: the key's length, its field id (-1 if unread) and the offset of
 * its bytes, which are held with their quotes and colon (`"key":`, length + 3 bytes).
 */
export const templateSlot = 3;
const maxTemplateKeys = 96;
const maxTemplateBytes = 4096;

/**
 * The keys of the last line of one event type, in order. nsys writes protobuf messages, whose
 * fields always come in the same order, so the next line of that type almost always has the
 * same keys: each is then confirmed where it stands, quotes and colon included, four bytes at a
 * time, instead of being hashed and looked up. A line that differs is read the slow way and
 * becomes the new template.
 */
export class KeyTemplate {
  readonly keys = new Int32Array(maxTemplateKeys * templateSlot);
  readonly bytes = new Uint8Array(maxTemplateBytes);
  readonly view = new DataView(this.bytes.buffer);
  count = 0;
  used = 0;

  /** Starts this template as the first `count` keys of `from`. */
  copyPrefix(from: KeyTemplate, count: number): void {
    this.keys.set(from.keys.subarray(0, count * templateSlot));
    this.count = count;
    const last = (count - 1) * templateSlot;
    this.used = count === 0 ? 0 : from.keys[last + 2]! + from.keys[last]! + 3;
    this.bytes.set(from.bytes.subarray(0, this.used));
  }

  /**
   * Appends a key of `length` bytes whose opening quote is at `buf[quote]` (the closing quote and
   * colon follow it); false when the template is full.
   */
  add(buf: Uint8Array, quote: number, length: number, field: number): boolean {
    const n = this.count;
    const used = this.used;
    if (n >= maxTemplateKeys || used + length + 3 > maxTemplateBytes) {
      return false;
    }
    const at = n * templateSlot;
    this.keys[at] = length;
    this.keys[at + 1] = field;
    this.keys[at + 2] = used;
    this.bytes.set(buf.subarray(quote, quote + length + 3), used);
    this.used = used + length + 3;
    this.count = n + 1;
    return true;
  }
}

keepShape(new KeyTemplate());
