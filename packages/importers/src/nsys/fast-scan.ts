import type { KeyTemplate } from './key-template.ts';
import { templateSlot } from './key-template.ts';
import type { NsysRecord } from './nsys-record.ts';
import { F, fieldFor, fieldNames } from './nsys-record.ts';
import {
  COLON,
  COMMA,
  DOT,
  LBRACE,
  MINUS,
  NINE,
  PLUS,
  QUOTE,
  RBRACE,
  ZERO,
  plainByte,
  sameWords,
} from '../io/json-bytes.ts';

/** The deepest object read here: the line (1), its message (2), a sub-object such as `kernel` (3). */
const maxDepth = 3;

/**
 * Reads one compact nsys JSON line (`{"Type":79,"CudaEvent":{…}}`) straight from its bytes into
 * `rec`, without building strings or objects: integers (also when quoted, as protobuf writes
 * int64) go to `rec.num`, other strings are kept as byte ranges. Returns the index just past
 * the closing brace (the caller checks that a newline follows), or -1 for anything it does not
 * read exactly as JSON.parse and `fillRecord` would, and the caller then parses the line with
 * JSON.parse: only ever a shortcut. That is whitespace, escapes, non-ASCII, arrays, fractions and
 * exponents or integers beyond 2^53 in read fields, anything that is not JSON, and the shapes
 * where JSON.parse's last-key-wins could differ from reading in order: a read key given twice, or
 * a key after a nested object (nsys writes a line's one sub-object last). Deeper objects than
 * `maxDepth` go to JSON.parse as well.
 *
 * `template` holds the keys of the last line of this type; `learned` receives this line's keys
 * when they differ (its count is -1 when there is nothing new to keep).
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
  const num = rec.num;
  const seen = rec.seen;
  const view = rec.view;
  const known = template?.keys;
  const knownView = template?.view;
  const knownCount = template?.count ?? 0;
  let k = 0;
  let matching = known !== undefined;
  let learning = learned !== undefined;
  if (learned !== undefined) {
    learned.count = 0;
    learned.used = 0;
  }
  if (buf[start] !== LBRACE) {
    return -1;
  }
  let i = start + 1;
  let depth = 1;
  while (i < end) {
    // key
    let field = -1;
    if (matching) {
      const at = k * templateSlot;
      const span = k < knownCount ? known![at]! + 3 : 0; // `"key":`
      if (span > 0 && i + span <= end && sameWords(view, i, knownView!, known![at + 2]!, span)) {
        field = known![at + 1]!;
        i += span;
        k++;
      } else {
        matching = false;
        if (learning) {
          learned!.copyPrefix(template!, k); // the keys confirmed so far start the new template
        }
      }
    }
    if (!matching) {
      if (buf[i] !== QUOTE) {
        return -1;
      }
      i++;
      const keyStart = i;
      let h = 0;
      let c = buf[i]!;
      while (plainByte[c] === 1) {
        h = (Math.imul(h, 31) + c) | 0;
        c = buf[++i]!;
      }
      if (c !== QUOTE || buf[i + 1] !== COLON) {
        return -1;
      }
      const keyLength = i - keyStart;
      i += 2;
      field = fieldFor(h, keyLength);
      if (field === F.Type || (field >= 0 && !sameKey(buf, keyStart, fieldNames[field]!))) {
        field = -1; // the type is read from the line's start; or another key, same hash and length
      }
      if (learning) {
        learning = learned!.add(buf, keyStart - 1, keyLength, field);
      }
    }
    // value
    let c = buf[i]!;
    if (c === QUOTE) {
      c = buf[++i]!;
      if (field < 0) {
        while (plainByte[c] === 1) {
          c = buf[++i]!;
        }
        if (c !== QUOTE) {
          return -1;
        }
      } else {
        if (seen[field] === gen) {
          return -1; // a key given twice: JSON.parse keeps the last
        }
        const valueStart = i;
        // The sign as a factor: a multiplication runs on every value, so a rare negative one
        // finds it optimized, where a unary minus seen for the first time would deoptimize the
        // scanner (and recompile it whole). -1 · 0 is -0, as JSON.parse reads "-0".
        let sign = 1;
        if (c === MINUS) {
          sign = -1;
          c = buf[++i]!;
        }
        // Digits first: most quoted values are protobuf int64s.
        const digitsStart = i;
        let v = 0;
        let d = c - ZERO;
        while (d >= 0 && d <= 9) {
          v = v * 10 + d;
          d = buf[++i]! - ZERO;
        }
        c = buf[i]!;
        const digits = i - digitsStart;
        if (c === QUOTE && digits > 0) {
          if (digits > 15) {
            return -1; // maybe beyond 2^53: the JSON.parse path keeps the decimal text
          }
          num[field] = sign * v;
        } else {
          while (plainByte[c] === 1) {
            c = buf[++i]!;
          }
          if (c !== QUOTE) {
            return -1;
          }
          num[field] = Number.NaN;
          rec.strStart[field] = valueStart;
          rec.strEnd[field] = i;
          rec.strGen[field] = gen;
        }
        seen[field] = gen;
      }
      i++;
    } else if (c === LBRACE) {
      if (depth === maxDepth || (field >= 0 && seen[field] === gen)) {
        return -1;
      }
      if (field >= 0 && depth === 2) {
        rec.sub = field; // the message's sub-object (kernel, memcpy, …) says what the event is
      }
      depth++;
      i++;
      continue;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      let sign = 1; // as above
      if (c === MINUS) {
        sign = -1;
        c = buf[++i]!;
      }
      let v = 0;
      let digits = 0;
      if (c === ZERO) {
        digits = 1; // JSON has no leading zeros: a digit after it ends the fast path below
        c = buf[++i]!;
      } else {
        let d = c - ZERO;
        while (d >= 0 && d <= 9) {
          v = v * 10 + d;
          digits++;
          d = buf[++i]! - ZERO;
        }
        c = buf[i]!;
      }
      if (digits === 0) {
        return -1;
      }
      if (c === DOT || c === 0x65 || c === 0x45) {
        if (field >= 0) {
          return -1; // a fraction or an exponent: JSON.parse reads it
        }
        i = skipFraction(buf, i);
        if (i < 0) {
          return -1;
        }
      } else if (field >= 0) {
        if (digits > 15 || seen[field] === gen) {
          return -1;
        }
        num[field] = sign * v;
        seen[field] = gen;
      }
    } else {
      const literal = literalAt(buf, i);
      if (literal < 0) {
        return -1;
      }
      i += literal === 0 ? 5 : 4;
      if (field >= 0) {
        if (seen[field] === gen) {
          return -1;
        }
        if (literal !== 2) {
          num[field] = literal; // true and false read as 1 and 0; null as absent
          seen[field] = gen;
        }
      }
    }
    // after a value: ',' then the next key, or '}' closing this object and every one around it
    c = buf[i]!;
    if (c === COMMA) {
      i++;
      continue;
    }
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
    return -1;
  }
  return -1;
}

/**
 * The index just after the fraction and exponent of a number that continues at `buf[i]` with
 * '.', 'e' or 'E', or -1 when they are not JSON (no digit after the dot or the exponent's sign).
 */
function skipFraction(buf: Uint8Array, i: number): number {
  let c = buf[i]!;
  if (c === DOT) {
    c = buf[++i]!;
    if (!(c >= ZERO && c <= NINE)) {
      return -1;
    }
    while (c >= ZERO && c <= NINE) {
      c = buf[++i]!;
    }
  }
  if (c === 0x65 || c === 0x45) {
    c = buf[++i]!;
    if (c === PLUS || c === MINUS) {
      c = buf[++i]!;
    }
    if (!(c >= ZERO && c <= NINE)) {
      return -1;
    }
    while (c >= ZERO && c <= NINE) {
      c = buf[++i]!;
    }
  }
  return i;
}

/** 1 for `true`, 0 for `false` and 2 for `null` at `buf[i]`, else -1. */
function literalAt(buf: Uint8Array, i: number): number {
  const c = buf[i];
  if (c === 0x74 && buf[i + 1] === 0x72 && buf[i + 2] === 0x75 && buf[i + 3] === 0x65) {
    return 1;
  }
  if (
    c === 0x66 &&
    buf[i + 1] === 0x61 &&
    buf[i + 2] === 0x6c &&
    buf[i + 3] === 0x73 &&
    buf[i + 4] === 0x65
  ) {
    return 0;
  }
  if (c === 0x6e && buf[i + 1] === 0x75 && buf[i + 2] === 0x6c && buf[i + 3] === 0x6c) {
    return 2;
  }
  return -1;
}

function sameKey(buf: Uint8Array, start: number, name: string): boolean {
  for (let j = 0; j < name.length; j++) {
    if (buf[start + j] !== name.charCodeAt(j)) {
      return false;
    }
  }
  return true;
}
