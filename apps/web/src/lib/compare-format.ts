/** A change of B against A as the compare table prints it, with why when it is not a percent. */
export interface Change {
  readonly text: string;
  /** Why the change is a ratio or n/a instead of a percentage (the cell's tooltip). */
  readonly reason?: string;
}

/** Beyond these, a percentage says more about the baseline's size than about the change. */
const maxPercent = 900;
const minRatio = 0.1;

/**
 * B relative to A: "+12.5%" in [-90%, +900%]; outside that a ratio ("1000× A", "0.05× A"),
 * since a tiny baseline turns any change into a huge percentage (0.001 ms → 1 ms is +99 900%);
 * "n/a" when A is 0.
 */
export function relativeChange(a: number, b: number): Change {
  if (a === b) {
    return { text: '±0%' };
  }
  if (a === 0) {
    return { text: 'n/a', reason: 'A is 0: no relative change exists' };
  }
  const ratio = b / a;
  const percent = (ratio - 1) * 100;
  if (ratio > 0 && (percent > maxPercent || ratio < minRatio)) {
    return {
      text: `${formatRatio(ratio)}× A`,
      reason: `as a ratio: A is ${ratio > 1 ? 'tiny' : 'large'} next to B, and the percentage (${signed(percent, 0)}%) would say little`,
    };
  }
  return { text: `${signed(percent, 1)}%` };
}

/** A difference of two fractions in percentage points: "+50.0 pt". */
export function pointChange(a: number, b: number): Change {
  return { text: `${signed((b - a) * 100, 1)} pt` };
}

/** A count difference: "+3", "-2", "±0". */
export function countChange(a: number, b: number): Change {
  return { text: b === a ? '±0' : signed(b - a, 0) };
}

function signed(value: number, digits: number): string {
  const text = Math.abs(value).toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return `${value < 0 ? '-' : '+'}${text}`;
}

/** 3 significant digits, at least: "1000", "46.1", "0.0500". */
function formatRatio(ratio: number): string {
  return ratio >= 100 ? Math.round(ratio).toLocaleString('en-US') : ratio.toPrecision(3);
}

/** A unit for two durations side by side, and both in it with the same decimals (aligned). */
export function durationColumns(
  aNs: number,
  bNs: number,
): {
  readonly unit: string;
  readonly a: string;
  readonly b: string;
} {
  const maxNs = Math.max(Math.abs(aNs), Math.abs(bNs));
  const [unit, nsPer] =
    maxNs >= 1e9 ? ['s', 1e9] : maxNs >= 1e6 ? ['ms', 1e6] : maxNs >= 1e3 ? ['µs', 1e3] : ['ns', 1];
  const digits = nsPer === 1 ? 0 : 3;
  const fmt = (ns: number): string =>
    (ns / nsPer).toLocaleString('en-US', {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
  return { unit, a: fmt(aNs), b: fmt(bNs) };
}

/** "1 chunk", "2 chunks". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
