import { useStore } from 'zustand';
import { lessonStore } from './lesson-store.ts';

function percent(share: number | null): string {
  return share === null ? 'no communication' : `${Math.round(share * 100)}%`;
}

/**
 * The comm–compute overlap of both runs: the share of communication kernel time (NCCL) that ran
 * while compute kernels ran too (the analysis' overlap.commCompute). What is not hidden adds to
 * the makespan.
 */
export function LessonCommOverlap() {
  const before = useStore(lessonStore, (s) => s.summary?.before.commComputeOverlap);
  const after = useStore(lessonStore, (s) => s.summary?.after.commComputeOverlap);
  if (before === undefined || after === undefined) {
    return null;
  }
  return (
    <p
      className="lesson-comm-overlap"
      data-testid="lesson-comm-overlap"
      data-before={before ?? ''}
      data-after={after ?? ''}
      title="share of communication kernel time that ran while compute kernels ran (comm–compute overlap)"
    >
      Communication hidden under compute: before <strong>{percent(before)}</strong> → after{' '}
      <strong>{percent(after)}</strong>
    </p>
  );
}
