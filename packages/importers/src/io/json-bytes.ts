// The bytes of JSON syntax, plain strings and word-at-a-time compares, for the importers'
// byte-level scanners (the Chrome/kineto event scanner and the nsys JSON line scanner).
export const QUOTE = 0x22;
export const PLUS = 0x2b;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
export const DOT = 0x2e;
export const ZERO = 0x30;
export const NINE = 0x39;
export const COLON = 0x3a;
export const LBRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const RBRACKET = 0x5d;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;

/**
 * 1 for the bytes a string holds as they are: printable ASCII (and DEL) but `"` and `\`. Any
 * other byte (an escape, a control byte, UTF-8) sends the event to JSON.parse, which then
 * decides exactly as it always did: what it accepts, and the error it gives otherwise.
 */
export const plainByte = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) {
  plainByte[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;
}

/** The index of the closing quote of a plain string whose content starts at `i`, or -1. */
export function plainEnd(buf: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = buf[i]!;
    if (plainByte[c] === 0) {
      return c === QUOTE ? i : -1;
    }
    i++;
  }
  return -1;
}

/**
 * Whether `length` bytes at `a[at]` equal those at `b[bt]`, compared four at a time (the last
 * word overlaps the one before it). The caller has checked that both ranges are in bounds.
 */
export function sameWords(
  a: DataView,
  at: number,
  b: DataView,
  bt: number,
  length: number,
): boolean {
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

/**
 * `plainEnd` four bytes at a time: a word is skipped whole when none of its bytes is `"`, `\`,
 * a control byte or non-ASCII (the word tricks of "Bit Twiddling Hacks": a byte is zero in
 * `w ^ 0x22222222` where it is a quote, and so on); the word that holds one, and the last
 * bytes, go byte by byte. `view` views the same bytes as `buf`.
 */
export function plainEndWords(buf: Uint8Array, view: DataView, i: number, end: number): number {
  const last = end - 4;
  while (i <= last) {
    const w = view.getInt32(i, true);
    const quote = w ^ 0x22222222;
    const slash = w ^ 0x5c5c5c5c;
    const special =
      ((quote - 0x01010101) & ~quote) | ((slash - 0x01010101) & ~slash) | (w - 0x20202020) | w;
    if ((special & 0x80808080) !== 0) {
      break;
    }
    i += 4;
  }
  return plainEnd(buf, i, end);
}
