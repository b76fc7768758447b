/** A unit a column of durations is written in, named once in its header rather than per cell. */
export interface DurationColumn {
  readonly unit: 'ns' | 'µs' | 'ms' | 's';
  readonly unitNs: number;
  /** Decimals every cell shows, so the figures line up on their decimal point. */
  readonly decimals: number;
}

/**
 * The unit and decimals for durations up to `maxNs`: the largest unit the maximum reaches, and
 * enough decimals to give the maximum 4 significant digits (as formatDurationNs does), at most 3.
 * 33.3 ms → ms with 2 decimals ("33.30", a 256 µs idle as "0.26"); 500 µs → µs with 1 ("500.0").
 */
export function durationColumn(maxNs: number): DurationColumn {
  const abs = Math.abs(maxNs);
  const [unit, unitNs] =
    abs >= 1e9
      ? (['s', 1e9] as const)
      : abs >= 1e6
        ? (['ms', 1e6] as const)
        : abs >= 1e3
          ? (['µs', 1e3] as const)
          : (['ns', 1] as const);
  const inUnit = abs / unitNs;
  const integerDigits = inUnit >= 1 ? Math.floor(Math.log10(inUnit)) + 1 : 1;
  const decimals = unit === 'ns' ? 0 : Math.min(3, Math.max(0, 4 - integerDigits));
  return { unit, unitNs, decimals };
}

/**
 * `ns` in the column's unit. A duration above zero that rounds to zero reads "<0.01" (the
 * column's smallest step), never "0.00": a short idle is not no idle.
 */
export function formatInColumn(ns: number, column: DurationColumn): string {
  const text = (ns / column.unitNs).toFixed(column.decimals);
  const smallest = 10 ** -column.decimals;
  if (ns > 0 && Number(text) === 0) {
    return `<${smallest.toFixed(column.decimals)}`;
  }
  return text;
}
