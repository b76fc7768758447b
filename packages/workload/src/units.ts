/** What a quantity measures: a plain number, bytes or nanoseconds. */
export type Dimension = 'none' | 'size' | 'time';

/** Bytes per size unit. Decimal units are powers of 1000, binary ones powers of 1024. */
export const sizeUnits: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

/** Nanoseconds per time unit. */
export const timeUnits: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  ms: 1e6,
  s: 1e9,
};

/** Thrown by `parseSize` and `parseDuration`: the message says what was wrong with the text. */
export class UnitError extends Error {
  override readonly name = 'UnitError';
}

const quantityPattern = /^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-zµ]*)\s*$/;

function parseQuantity(
  text: string,
  units: Readonly<Record<string, number>>,
  what: string,
): number {
  const match = quantityPattern.exec(text);
  if (match === null) {
    throw new UnitError(
      `"${text}" is not a ${what}: expected a number and a unit, like ${examples(what)}`,
    );
  }
  const unit = match[2] ?? '';
  const factor = unit === '' ? 1 : units[unit];
  if (factor === undefined) {
    throw new UnitError(
      `"${text}": unknown ${what} unit "${unit}" (use ${Object.keys(units).join(', ')})`,
    );
  }
  return Number(match[1]) * factor;
}

function examples(what: string): string {
  return what === 'size' ? '"64MiB" or "4096"' : '"50us" or "1.5ms"';
}

/** `"64MiB"` → 67108864. A bare number is bytes. Throws UnitError for bad text or a fraction of a byte. */
export function parseSize(text: string): number {
  const bytes = parseQuantity(text, sizeUnits, 'size');
  if (!Number.isSafeInteger(bytes)) {
    throw new UnitError(`"${text}" is not a whole number of bytes (${bytes})`);
  }
  return bytes;
}

/** `"50us"` → 50000 (ns). A bare number is ns. Rounds to whole ns. Throws UnitError for bad text. */
export function parseDuration(text: string): number {
  const ns = Math.round(parseQuantity(text, timeUnits, 'duration'));
  if (!Number.isSafeInteger(ns)) {
    throw new UnitError(`"${text}" is too long a duration`);
  }
  return ns;
}
