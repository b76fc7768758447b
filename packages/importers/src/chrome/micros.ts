/** A decimal µs value split where a double stays exact: whole µs and the ns below them. */
export interface Micros {
  /** Whole µs, an exact integer (below 2^53). */
  us: number;
  /** ns below the whole µs, 0–999, rounded half up from the digits past the third decimal. */
  ns: number;
  negative: boolean;
}

/** How a decimal text read: a value, not a number, or a number of µs too large to keep exact. */
export const enum MicrosRead {
  Ok,
  NotANumber,
  TooLarge,
}

const maxExponent = 400;

/**
 * Reads the decimal number in `bytes[start, end)` (JSON number syntax, e.g. `1623142623460111.123`
 * or `1.5e3`) as whole µs and ns without ever holding the whole value in a double: a double at
 * 1.7e15 µs resolves only 0.25 µs, so the digits are split at the decimal point first.
 */
export function readMicros(bytes: Uint8Array, start: number, end: number, out: Micros): MicrosRead {
  let i = start;
  out.negative = bytes[i] === 0x2d; // '-'
  if (out.negative) {
    i++;
  }
  const intStart = i;
  let us = 0;
  while (i < end && isDigit(bytes[i]!)) {
    us = us * 10 + (bytes[i]! - 0x30);
    i++;
  }
  const intEnd = i;
  if (intEnd === intStart) {
    return MicrosRead.NotANumber;
  }
  let fracStart = i;
  let fracEnd = i;
  if (i < end && bytes[i] === 0x2e) {
    fracStart = ++i;
    while (i < end && isDigit(bytes[i]!)) {
      i++;
    }
    fracEnd = i;
    if (fracEnd === fracStart) {
      return MicrosRead.NotANumber;
    }
  }
  if (i < end && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
    return readScientific(bytes, intStart, intEnd, fracStart, fracEnd, i + 1, end, out);
  }
  if (i !== end) {
    return MicrosRead.NotANumber;
  }
  if (us > Number.MAX_SAFE_INTEGER) {
    return MicrosRead.TooLarge;
  }
  // The first three decimals are the ns; the fourth rounds them.
  let ns = 0;
  for (let k = 0; k < 3; k++) {
    const at = fracStart + k;
    ns = ns * 10 + (at < fracEnd ? bytes[at]! - 0x30 : 0);
  }
  if (fracStart + 3 < fracEnd && bytes[fracStart + 3]! >= 0x35) {
    ns++;
  }
  return settle(us, ns, out);
}

/** `1.623142623460111123e15`: the digits and the point moved by the exponent, then as above. */
function readScientific(
  bytes: Uint8Array,
  intStart: number,
  intEnd: number,
  fracStart: number,
  fracEnd: number,
  expStart: number,
  end: number,
  out: Micros,
): MicrosRead {
  let i = expStart;
  const negativeExp = bytes[i] === 0x2d;
  if (bytes[i] === 0x2d || bytes[i] === 0x2b) {
    i++;
  }
  if (i === end) {
    return MicrosRead.NotANumber;
  }
  let exp = 0;
  for (; i < end; i++) {
    if (!isDigit(bytes[i]!)) {
      return MicrosRead.NotANumber;
    }
    exp = Math.min(exp * 10 + (bytes[i]! - 0x30), maxExponent);
  }
  const intDigits = intEnd - intStart;
  const digitCount = intDigits + (fracEnd - fracStart);
  // Digit k of the mantissa, its decimal point removed; zeros beyond both ends.
  const digit = (k: number): number => {
    if (k < 0 || k >= digitCount) {
      return 0;
    }
    return bytes[k < intDigits ? intStart + k : fracStart + (k - intDigits)]! - 0x30;
  };
  const point = intDigits + (negativeExp ? -exp : exp);
  let us = 0;
  for (let k = 0; k < point; k++) {
    us = us * 10 + digit(k);
    if (us > Number.MAX_SAFE_INTEGER) {
      return MicrosRead.TooLarge;
    }
  }
  const ns = digit(point) * 100 + digit(point + 1) * 10 + digit(point + 2);
  return settle(us, digit(point + 3) >= 5 ? ns + 1 : ns, out);
}

/** Carries a rounded-up 1000 ns into the µs. */
function settle(us: number, ns: number, out: Micros): MicrosRead {
  if (ns === 1000) {
    us++;
    ns = 0;
  }
  if (us > Number.MAX_SAFE_INTEGER) {
    return MicrosRead.TooLarge;
  }
  out.us = us;
  out.ns = ns;
  return MicrosRead.Ok;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Integer parts longer than this are left to readMicros (15 digits stay exact in the loop). */
const maxPlainDigits = 15;

/**
 * The event scanner's shortcut for the common case: a plain non-negative decimal at `bytes[i]`
 * (`4460266250047.376`: at most 15 digits before the point, no exponent, no sign) read into `out`
 * as readMicros reads it, in the same pass that finds its end; returns the index past it, or -1
 * for anything else (the caller skips the value and EventTimes reads its bytes).
 */
export function plainMicrosEnd(
  bytes: Uint8Array,
  view: DataView,
  i: number,
  end: number,
  out: Micros,
): number {
  const start = i;
  let us = 0;
  // Four digits at a time while a word of them fits: each byte 0x30–0x39 (as digitsEndWords
  // checks), then pairs of digits (d0·10 + d1 in bytes 0 and 2), then the four as one number.
  while (i + 4 <= end) {
    const w = view.getInt32(i, true);
    if ((w & 0xf0f0f0f0) !== 0x30303030 || ((w + 0x06060606) & 0xf0f0f0f0) !== 0x30303030) {
      break;
    }
    const v = w & 0x0f0f0f0f;
    const pairs = (Math.imul(v, 10) + (v >>> 8)) & 0x00ff00ff;
    us = us * 10000 + ((Math.imul(pairs, 1 + (100 << 16)) >>> 16) & 0xffff);
    i += 4;
  }
  while (i < end) {
    const d = bytes[i]! - 0x30;
    if (d < 0 || d > 9) {
      break;
    }
    us = us * 10 + d;
    i++;
  }
  const digits = i - start;
  if (digits === 0 || digits > maxPlainDigits || (digits > 1 && bytes[start] === 0x30)) {
    return -1;
  }
  let ns = 0;
  if (i < end && bytes[i] === 0x2e) {
    const fracStart = ++i;
    while (i < end) {
      const d = bytes[i]! - 0x30;
      if (d < 0 || d > 9) {
        break;
      }
      const k = i - fracStart;
      if (k < 3) {
        ns = ns * 10 + d;
      } else if (k === 3 && d >= 5) {
        ns++; // the fourth decimal rounds; the first three are complete by now
      }
      i++;
    }
    const fracDigits = i - fracStart;
    if (fracDigits === 0) {
      return -1;
    }
    if (fracDigits < 3) {
      ns *= fracDigits === 1 ? 100 : 10;
    }
  }
  if (i >= end || bytes[i] === 0x65 || bytes[i] === 0x45) {
    return -1; // an exponent, or a number the chunk may cut: the general path decides
  }
  out.negative = false;
  return settle(us, ns, out) === MicrosRead.Ok ? i : -1;
}
