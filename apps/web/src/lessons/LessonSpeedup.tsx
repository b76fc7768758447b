import { formatDurationNs } from '@streamscope/trace';
import { useStore } from 'zustand';
import { lessonStore } from './lesson-store.ts';

/** Both makespans and the speedup of after over before; on the GPU, the simulator's prediction. */
export function LessonSpeedup() {
  const summary = useStore(lessonStore, (s) => s.summary);
  const simulated = useStore(lessonStore, (s) => s.simulated);
  const status = useStore(lessonStore, (s) => s.status);
  if (summary === null) {
    return (
      <p className="lesson-muted" data-testid="lesson-speedup-pending">
        {status === 'running' ? 'Simulating…' : ''}
      </p>
    );
  }
  const predicted =
    simulated !== null && simulated.afterNs > 0 ? simulated.beforeNs / simulated.afterNs : null;
  return (
    <div className="lesson-speedup" data-status={status}>
      <span>
        before {formatDurationNs(summary.before.makespanNs)} → after{' '}
        {formatDurationNs(summary.after.makespanNs)}
      </span>
      <strong
        data-testid="lesson-speedup"
        data-speedup={summary.speedup}
        data-lesson={summary.lessonId}
        data-profile={summary.profile}
      >
        {summary.speedup.toFixed(2)}×
      </strong>
      {predicted !== null && (
        <span data-testid="lesson-sim-vs-gpu">
          measured on the GPU; the simulator predicted {formatDurationNs(simulated?.beforeNs ?? 0)}{' '}
          → {formatDurationNs(simulated?.afterNs ?? 0)} ({predicted.toFixed(2)}×, off by{' '}
          {Math.round(Math.abs(summary.speedup / predicted - 1) * 100)}%)
        </span>
      )}
    </div>
  );
}
