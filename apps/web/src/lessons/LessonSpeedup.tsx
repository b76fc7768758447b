import { formatDurationNs } from '@streamscope/trace';
import { useStore } from 'zustand';
import { findLesson } from './lesson-catalogue.ts';
import { measuredLine } from './lesson-fidelity.ts';
import { lessonStore } from './lesson-store.ts';

function offBy(measuredNs: number, predictedNs: number): string {
  if (predictedNs <= 0) {
    return '';
  }
  const share = measuredNs / predictedNs - 1;
  return `${share >= 0 ? '+' : '−'}${Math.round(Math.abs(share) * 100)}%`;
}

/**
 * The before and after measure (makespan, or the lesson's latency) and the speedup; on the GPU,
 * the simulator's prediction beside the measurement.
 */
export function LessonSpeedup() {
  const summary = useStore(lessonStore, (s) => s.summary);
  const simulated = useStore(lessonStore, (s) => s.simulated);
  const status = useStore(lessonStore, (s) => s.status);
  const backend = useStore(lessonStore, (s) => s.backend);
  if (summary === null) {
    return (
      <p className="lesson-muted" data-testid="lesson-speedup-pending">
        {status === 'running' ? (backend === 'cuda' ? 'Running on the GPU…' : 'Simulating…') : ''}
      </p>
    );
  }
  const predicted =
    simulated !== null && simulated.afterNs > 0 ? simulated.beforeNs / simulated.afterNs : null;
  const lesson = findLesson(summary.lessonId);
  // On the simulator, at the lesson's own settings: what the GPU behind the profile measured.
  const measured =
    backend === 'cuda' || lesson === undefined
      ? null
      : measuredLine(
          lesson,
          summary.profile,
          summary.after.params,
          {
            beforeNs: summary.before.makespanNs,
            afterNs: summary.after.makespanNs,
            measureBeforeNs: summary.before.measureNs,
            measureAfterNs: summary.after.measureNs,
          },
          formatDurationNs,
        );
  return (
    <div className="lesson-speedup" data-status={status}>
      <span>
        {summary.measureLabel}: before {formatDurationNs(summary.before.measureNs)} → after{' '}
        {formatDurationNs(summary.after.measureNs)}
      </span>
      <strong
        data-testid="lesson-speedup"
        data-speedup={summary.speedup}
        data-lesson={summary.lessonId}
        data-profile={summary.profile}
        title={`speedup of the ${summary.measureLabel}: before / after`}
      >
        {summary.speedup.toFixed(2)}×
      </strong>
      <span className="lesson-muted">on {summary.profile}</span>
      {measured !== null && (
        <span className="lesson-muted" data-testid="lesson-measured">
          {measured}
        </span>
      )}
      {simulated !== null && predicted !== null && (
        <span data-testid="lesson-sim-vs-gpu">
          The simulator predicted {formatDurationNs(simulated.beforeNs)} →{' '}
          {formatDurationNs(simulated.afterNs)} ({predicted.toFixed(2)}×): the GPU measured{' '}
          {offBy(summary.before.measureNs, simulated.beforeNs)} before and{' '}
          {offBy(summary.after.measureNs, simulated.afterNs)} after.
        </span>
      )}
    </div>
  );
}
