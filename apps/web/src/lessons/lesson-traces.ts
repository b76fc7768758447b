import type { Trace } from '@streamscope/trace';

// The two traces of the lesson on screen. Kept out of the store (typed arrays never go there);
// the store's `tracesVersion` says when they changed.

let before: Trace | undefined;
let after: Trace | undefined;

export function setLessonTraces(
  beforeTrace: Trace | undefined,
  afterTrace: Trace | undefined,
): void {
  before = beforeTrace;
  after = afterTrace;
}

export function lessonTrace(side: 'before' | 'after'): Trace | undefined {
  return side === 'before' ? before : after;
}
