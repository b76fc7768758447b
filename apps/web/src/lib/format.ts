import { formatDurationNs } from '@streamscope/trace';

/** "12,345" with thin grouping; counts in tables. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** A duration, or an em dash when there is none yet. */
export function formatSpan(ns: number): string {
  return ns > 0 ? formatDurationNs(ns) : '—';
}

/** "14:03:22" for today, else "2026-11-21 14:03". */
export function formatCreatedAt(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) {
    return iso;
  }
  // Always the date: a list of runs from several days must not read as one afternoon.
  const pad = (n: number): string => String(n).padStart(2, '0');
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day} ${date.toTimeString().slice(0, 8)}`;
}

/** Percent with one decimal for fractions in [0, 1]. */
export function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}
