// Checking skippers for the Chrome event scanner: each returns the index past the JSON it read,
// or -1 for anything that is not plain JSON there (the scanner then leaves the event to
// JSON.parse, which decides).
import {
  COLON,
  COMMA,
  DOT,
  LBRACE,
  LBRACKET,
  MINUS,
  NINE,
  QUOTE,
  RBRACE,
  RBRACKET,
  ZERO,
  plainEnd,
  plainEndWords,
} from '../io/json-bytes.ts';

const spaceByte = new Uint8Array(256);
spaceByte[0x20] = spaceByte[0x0a] = spaceByte[0x0d] = spaceByte[0x09] = 1;

/**
 * Skips any JSON value at `buf[i]`, checking it; the index past it, or -1 (also for containers
 * nested deeper than `nesting` has room for: JSON.parse reads those).
 */
export function skipValue(
  buf: Uint8Array,
  view: DataView,
  i: number,
  end: number,
  nesting: Uint8Array,
): number {
  const maxNesting = nesting.length;
  let depth = 0;
  for (;;) {
    // A value starts at buf[i] (no space before it).
    if (i >= end) {
      return -1;
    }
    let c = buf[i]!;
    if (c === LBRACE || c === LBRACKET) {
      if (depth === maxNesting) {
        return -1;
      }
      const object = c === LBRACE;
      nesting[depth++] = object ? 1 : 0;
      i = skipSpace(buf, i + 1, end);
      if (i >= end) {
        return -1;
      }
      c = buf[i]!;
      if (c === (object ? RBRACE : RBRACKET)) {
        depth--;
        i++;
      } else {
        if (object) {
          i = keyEnd(buf, i, end);
          if (i < 0) {
            return -1;
          }
        }
        continue;
      }
    } else if (c === QUOTE) {
      i = plainEndWords(buf, view, i + 1, end);
      if (i < 0) {
        return -1;
      }
      i++;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      i = numberEnd(buf, view, i, end);
    } else {
      i = literalEnd(buf, i, end);
    }
    if (i < 0) {
      return -1;
    }
    // After a value: close containers, or go on to the next element.
    for (;;) {
      if (depth === 0) {
        return i;
      }
      i = skipSpace(buf, i, end);
      if (i >= end) {
        return -1;
      }
      c = buf[i]!;
      const object = nesting[depth - 1] === 1;
      if (c === COMMA) {
        i = skipSpace(buf, i + 1, end);
        if (object) {
          i = keyEnd(buf, i, end);
          if (i < 0) {
            return -1;
          }
        }
        break;
      }
      if (c !== (object ? RBRACE : RBRACKET)) {
        return -1;
      }
      depth--;
      i++;
    }
  }
}

/** An object key at `buf[i]` (`"key"`, space, `:`, space): the index of its value, or -1. */
function keyEnd(buf: Uint8Array, i: number, end: number): number {
  if (i >= end || buf[i] !== QUOTE) {
    return -1;
  }
  i = plainEnd(buf, i + 1, end);
  if (i < 0) {
    return -1;
  }
  i = skipSpace(buf, i + 1, end);
  if (i >= end || buf[i] !== COLON) {
    return -1;
  }
  return skipSpace(buf, i + 1, end);
}

export function skipSpace(buf: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = buf[i]!;
    if (c > 0x20 || spaceByte[c] === 0) {
      return i;
    }
    i++;
  }
  return i;
}

/** The index past a JSON number at `buf[i]`, or -1 when it is not one. */
function numberEnd(buf: Uint8Array, view: DataView, i: number, end: number): number {
  if (buf[i] === MINUS) {
    i++;
  }
  if (i >= end) {
    return -1;
  }
  let c = buf[i]!;
  if (c === ZERO) {
    i++;
  } else if (c > ZERO && c <= NINE) {
    i = digitsEndWords(buf, view, i + 1, end);
  } else {
    return -1;
  }
  if (i < end) {
    c = buf[i]!;
    if (c === DOT || c === 0x65 || c === 0x45) {
      return fractionEnd(buf, view, i, end);
    }
  }
  return i;
}

/** The index past the fraction and exponent starting at `buf[i]` ('.', 'e' or 'E'), or -1. */
export function fractionEnd(buf: Uint8Array, view: DataView, i: number, end: number): number {
  if (buf[i] === DOT) {
    const from = i + 1;
    i = digitsEndWords(buf, view, from, end);
    if (i === from) {
      return -1;
    }
  }
  if (i < end && (buf[i] === 0x65 || buf[i] === 0x45)) {
    i++;
    if (i < end && (buf[i] === 0x2b || buf[i] === MINUS)) {
      i++;
    }
    const from = i;
    i = digitsEnd(buf, from, end);
    if (i === from) {
      return -1;
    }
  }
  return i;
}

/**
 * `digitsEnd` four bytes at a time: a word whose bytes are all 0x30–0x39 has 3 in every high
 * nibble, and still has once 6 is added to each byte. `view` views the same bytes as `buf`.
 */
function digitsEndWords(buf: Uint8Array, view: DataView, i: number, end: number): number {
  const last = end - 4;
  while (i <= last) {
    const w = view.getInt32(i, true);
    if ((w & 0xf0f0f0f0) !== 0x30303030 || ((w + 0x06060606) & 0xf0f0f0f0) !== 0x30303030) {
      break;
    }
    i += 4;
  }
  return digitsEnd(buf, i, end);
}

function digitsEnd(buf: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = buf[i]!;
    if (c < ZERO || c > NINE) {
      break;
    }
    i++;
  }
  return i;
}

/** The index past `true`, `false` or `null` at `buf[i]`, or -1. */
function literalEnd(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i];
  if (c === 0x74 || c === 0x6e) {
    if (i + 4 > end) {
      return -1;
    }
    const ok =
      c === 0x74
        ? buf[i + 1] === 0x72 && buf[i + 2] === 0x75 && buf[i + 3] === 0x65
        : buf[i + 1] === 0x75 && buf[i + 2] === 0x6c && buf[i + 3] === 0x6c;
    return ok ? i + 4 : -1;
  }
  if (c === 0x66) {
    if (i + 5 > end) {
      return -1;
    }
    const ok =
      buf[i + 1] === 0x61 && buf[i + 2] === 0x6c && buf[i + 3] === 0x73 && buf[i + 4] === 0x65;
    return ok ? i + 5 : -1;
  }
  return -1;
}
