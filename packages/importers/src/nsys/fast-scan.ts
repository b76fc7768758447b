import type { NsysRecord } from './nsys-record.ts';
import { fieldFor, fieldNames } from './nsys-record.ts';
import { keepShape } from '../shape-keeper.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const MINUS = 0x2d;
const BACKSLASH = 0x5c;

/**
 * Entries per key in a template: length, field id (-1 if unread), offset of its bytes, and
 * whether it must be compared in full (1) or by its first, middle and last bytes (0).
 */
const slot = 4;
const maxTemplateKeys = 96;
const maxTemplateBytes = 4096;

/**
 * The keys of the last line of one event type, in order. nsys writes protobuf messages, whose
 * fields always come in the same order, so the next line of that type almost always has the
 * same keys: each is then confirmed where it stands instead of being hashed and looked up. A
 * key the importer reads is compared byte for byte; a key it skips only by its length, its
 * first, middle and last bytes and the quote and colon after it — mistaking one skipped key for
 * another changes nothing — unless a key the importer reads looks the same by those bytes, in
 * which case it too is compared in full. A line that differs is read the slow way and becomes
 * the new template.
 */
export class KeyTemplate {
  readonly keys = new Int32Array(maxTemplateKeys * slot);
  readonly bytes = new Uint8Array(maxTemplateBytes);
  readonly view = new DataView(this.bytes.buffer);
  count = 0;
  used = 0;

  /** Starts this template as the first `count` keys of `from`. */
  copyPrefix(from: KeyTemplate, count: number): void {
    this.keys.set(from.keys.subarray(0, count * slot));
    this.count = count;
    this.used =
      count === 0 ? 0 : from.keys[(count - 1) * slot + 2]! + from.keys[(count - 1) * slot]!;
    this.bytes.set(from.bytes.subarray(0, this.used));
  }
}

keepShape(new KeyTemplate());

/**
 * Reads one compact nsys JSON line (`{"Type":79,"CudaEvent":{…}}`) straight from its bytes into
 * `rec`, without building strings or objects: integers (also when quoted, as protobuf writes
 * int64) go to `rec.num`, other strings are kept as byte ranges. Returns the index just past
 * the closing brace (the caller checks that a newline follows), or -1 for anything it does not
 * handle — whitespace, escapes, non-ASCII, arrays, fractions, integers beyond 2^53, a line that
 * runs past `end` — and the caller then parses the line with JSON.parse: only ever a shortcut.
 */
export function fastScan(
  buf: Uint8Array,
  start: number,
  end: number,
  rec: NsysRecord,
  template?: KeyTemplate,
  learned?: KeyTemplate,
): number {
  const gen = rec.gen;
  const known = template?.keys;
  const knownBytes = template?.bytes;
  const knownView = template?.view;
  const view = rec.view;
  const knownCount = template?.count ?? 0;
  let k = 0;
  let matching = known !== undefined;
  let learning = learned !== undefined;
  if (learned !== undefined) {
    learned.count = 0;
    learned.used = 0;
  }
  const num = rec.num;
  const seen = rec.seen;
  let i = start;
  if (buf[i] !== LBRACE) {
    return -1;
  }
  i++;
  let depth = 1;
  while (i < end) {
    // key
    if (buf[i] !== QUOTE) {
      return -1;
    }
    let field = -1;
    if (matching) {
      const at = k * slot;
      const length = k < knownCount ? known![at]! : -1;
      let same = length > 0 && buf[i + length + 1] === QUOTE && buf[i + length + 2] === COLON;
      if (same) {
        const offset = known![at + 2]! - i - 1;
        if (known![at + 3] === 1) {
          same = sameWords(view, i + 1, knownView!, known![at + 2]!, length);
        } else {
          const mid = i + 1 + (length >> 1);
          same =
            buf[i + 1] === knownBytes![i + 1 + offset] &&
            buf[mid] === knownBytes![mid + offset] &&
            buf[i + length] === knownBytes![i + length + offset];
        }
      }
      if (same) {
        field = known![at + 1]!;
        i += length + 3;
        k++;
      } else {
        matching = false;
        if (learning) {
          learned!.copyPrefix(template!, k); // the keys confirmed so far start the new template
        }
      }
    }
    if (!matching) {
      i++;
      const keyStart = i;
      let h = 0;
      let c = buf[i]!;
      while (c !== QUOTE) {
        if (c < 0x20 || c === BACKSLASH || c >= 0x80 || i >= end) {
          return -1;
        }
        h = (Math.imul(h, 31) + c) | 0;
        c = buf[++i]!;
      }
      const keyLength = i - keyStart;
      i++;
      if (buf[i] !== COLON) {
        return -1;
      }
      i++;
      field = fieldFor(h, keyLength);
      if (field >= 0 && !sameKey(buf, keyStart, fieldNames[field]!)) {
        field = -1; // a different key with the same hash and length
      }
      if (learning) {
        const n = learned!.count;
        const used = learned!.used;
        if (n >= maxTemplateKeys || used + keyLength > maxTemplateBytes) {
          learning = false;
        } else {
          const at = n * slot;
          learned!.keys[at] = keyLength;
          learned!.keys[at + 1] = field;
          learned!.keys[at + 2] = used;
          learned!.keys[at + 3] =
            field >= 0 || looksLikeReadField(buf, keyStart, keyLength) ? 1 : 0;
          learned!.bytes.set(buf.subarray(keyStart, keyStart + keyLength), used);
          learned!.used = used + keyLength;
          learned!.count = n + 1;
        }
      }
    }
    let c = buf[i]!;
    if (field < 0 && c !== LBRACE) {
      // A value nobody reads: find its end without parsing it.
      if (c === QUOTE) {
        i++;
        c = buf[i]!;
        while (c !== QUOTE) {
          if (c === BACKSLASH || i >= end) {
            return -1;
          }
          c = buf[++i]!;
        }
        i++;
      } else {
        while (c !== COMMA && c !== RBRACE) {
          if (c === QUOTE || c === 0x5b /* [ */ || i >= end) {
            return -1;
          }
          c = buf[++i]!;
        }
      }
    } else if (c === QUOTE) {
      i++;
      const valueStart = i;
      let v = 0;
      let digits = true;
      c = buf[i]!;
      if (c === MINUS) {
        c = buf[++i]!;
      }
      // Digits first: most quoted values are protobuf int64s.
      let d = c - 0x30;
      while (d >= 0 && d <= 9) {
        v = v * 10 + d;
        d = buf[++i]! - 0x30;
      }
      c = buf[i]!;
      if (c !== QUOTE) {
        digits = false;
        while (c !== QUOTE) {
          if (c < 0x20 || c === BACKSLASH || c >= 0x80 || i >= end) {
            return -1;
          }
          c = buf[++i]!;
        }
      }
      if (field >= 0) {
        const length = i - valueStart;
        if (digits && length > 0 && length <= 15) {
          num[field] = buf[valueStart] === MINUS ? -v : v;
        } else if (digits && length > 15) {
          return -1; // beyond 2^53: the exact path keeps the decimal text
        } else {
          num[field] = Number.NaN;
          rec.strStart[field] = valueStart;
          rec.strEnd[field] = i;
          rec.strGen[field] = gen;
        }
        seen[field] = gen;
      }
      i++;
    } else if (c === LBRACE) {
      if (field >= 0) {
        rec.sub = field;
      }
      depth++;
      i++;
      continue;
    } else if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      const negative = c === MINUS;
      if (negative) {
        c = buf[++i]!;
      }
      let v = 0;
      let d = c - 0x30;
      let count = 0;
      while (d >= 0 && d <= 9) {
        v = v * 10 + d;
        count++;
        d = buf[++i]! - 0x30;
      }
      c = buf[i]!;
      if (count === 0 || count > 15 || (c !== COMMA && c !== RBRACE)) {
        return -1;
      }
      if (field >= 0) {
        num[field] = negative ? -v : v;
        seen[field] = gen;
      }
    } else if (c === 0x74 /* true */ || c === 0x66 /* false */ || c === 0x6e /* null */) {
      while (i < end && buf[i] !== COMMA && buf[i] !== RBRACE) {
        i++;
      }
    } else {
      return -1;
    }
    // after a value: ',' then the next key, or '}' closing one or more objects
    c = buf[i]!;
    while (c === RBRACE) {
      depth--;
      i++;
      if (depth === 0) {
        if (matching && k !== knownCount) {
          matching = false; // fewer keys than the template: keep this line's keys instead
          if (learning) {
            learned!.copyPrefix(template!, k);
          }
        }
        if (learned !== undefined && (matching || !learning)) {
          learned.count = -1; // nothing new to keep
        }
        return i;
      }
      c = buf[i]!;
    }
    if (c !== COMMA) {
      return -1;
    }
    i++;
  }
  return -1;
}

/**
 * Whether `length` bytes at `a[at]` equal those at `b[bt]`, compared four at a time (the last
 * word overlaps the one before it): keys the importer reads are confirmed in full, and this is
 * the scanner's most frequent comparison. The caller has checked that both ranges are in bounds.
 */
function sameWords(a: DataView, at: number, b: DataView, bt: number, length: number): boolean {
  if (length < 4) {
    for (let j = 0; j < length; j++) {
      if (a.getUint8(at + j) !== b.getUint8(bt + j)) {
        return false;
      }
    }
    return true;
  }
  const last = length - 4;
  for (let j = 0; j < last; j += 4) {
    if (a.getInt32(at + j, true) !== b.getInt32(bt + j, true)) {
      return false;
    }
  }
  return a.getInt32(at + last, true) === b.getInt32(bt + last, true);
}

function sameKey(buf: Uint8Array, start: number, name: string): boolean {
  for (let j = 0; j < name.length; j++) {
    if (buf[start + j] !== name.charCodeAt(j)) {
      return false;
    }
  }
  return true;
}

/** True when a read field's name has this length and these first, middle and last bytes. */
function looksLikeReadField(buf: Uint8Array, start: number, length: number): boolean {
  const mid = length >> 1;
  return fieldNames.some(
    (name) =>
      name.length === length &&
      name.charCodeAt(0) === buf[start] &&
      name.charCodeAt(mid) === buf[start + mid] &&
      name.charCodeAt(length - 1) === buf[start + length - 1],
  );
}
