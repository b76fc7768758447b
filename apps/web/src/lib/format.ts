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
  const today = new Date();
  const time = date.toTimeString().slice(0, 8);
  if (date.toDateString() === today.toDateString()) {
    return time;
  }
  return `${date.toISOString().slice(0, 10)} ${time.slice(0, 5)}`;
}

/** Percent with one decimal for fractions in [0, 1]. */
export function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}
