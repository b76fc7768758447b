// The bytes of JSON syntax, and plain strings, for the importers' byte-level scanners (the
// Chrome/kineto event scanner and the nsys JSON line scanner).
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
