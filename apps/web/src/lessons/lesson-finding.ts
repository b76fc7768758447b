import type { Analysis } from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';

export type LessonSideName = 'before' | 'after';

/**
 * One sentence about the difference between the two runs, built from their analyses, pointing
 * at ops of one side (indices into that side's `trace.ops`).
 */
export interface LessonFinding {
  /** Stable within one result, for React keys and test ids. */
  readonly key: string;
  /** `fixed`: the before run had it and the after run does not; `introduced`: the reverse. */
  readonly tone: 'fixed' | 'reduced' | 'introduced' | 'change';
  readonly side: LessonSideName;
  /** An analysis rule id, or `metric:<name>` for a metric difference. */
  readonly source: string;
  readonly title: string;
  readonly message: string;
  readonly opIndices: readonly number[];
}

export interface ExplainSide {
  readonly trace: Trace;
  readonly analysis: Analysis;
}

/** At most this many ops per finding: enough to highlight, small enough to post to the UI. */
export const maxOpsPerFinding = 64;
/** A metric difference smaller than this share of the before makespan is not worth a sentence. */
export const minTimeShare = 0.03;
/** Relative change of a rate (bandwidth) below which it is not mentioned. */
export const minRateChange = 0.2;

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}
