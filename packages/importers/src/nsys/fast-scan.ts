import type { NsysRecord } from './nsys-record.ts';
import { fieldFor } from './nsys-record.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const MINUS = 0x2d;
const BACKSLASH = 0x5c;

/**
 * Reads one compact nsys JSON line (`{"Type":79,"CudaEvent":{…}}`) straight from its bytes into
 * `rec`, without building strings or objects: integers (also when quoted, as protobuf writes
 * int64) go to `rec.num`, other strings are kept as byte ranges. Returns the index just past
 * the closing brace (the caller checks that a newline follows), or -1 for anything it does not
 * handle — whitespace, escapes, non-ASCII, arrays, fractions, integers beyond 2^53, a line that
 * runs past `end` — and the caller then parses the line with JSON.parse: only ever a shortcut.
 */
export function fastScan(buf: Uint8Array, start: number, end: number, rec: NsysRecord): number {
  const gen = rec.gen;
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
    const field = fieldFor(h, keyLength);
    c = buf[i]!;
    if (c === QUOTE) {
      i++;
      const valueStart = i;
      let v = 0;
      let digits = true;
      c = buf[i]!;
      if (c === MINUS) {
        c = buf[++i]!;
      }
      while (c !== QUOTE) {
        if (c < 0x20 || c === BACKSLASH || c >= 0x80 || i >= end) {
          return -1;
        }
        const d = c - 0x30;
        if (d >= 0 && d <= 9) {
          v = v * 10 + d;
        } else {
          digits = false;
        }
        c = buf[++i]!;
      }
      if (field >= 0) {
        const length = i - valueStart;
        if (digits && length > 0 && length <= 15) {
          num[field] = buf[valueStart] === MINUS ? -v : v;
          rec.strStart[field] = -1;
        } else if (digits && length > 15) {
          return -1; // beyond 2^53: the exact path keeps the decimal text
        } else {
          num[field] = Number.NaN;
          rec.strStart[field] = valueStart;
          rec.strEnd[field] = i;
        }
        rec.text[field] = undefined;
        rec.bigText[field] = undefined;
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
        rec.strStart[field] = -1;
        rec.text[field] = undefined;
        rec.bigText[field] = undefined;
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
