import { useStore } from 'zustand';
import { LessonCommOverlap } from './LessonCommOverlap.tsx';
import { LessonCompareButton } from './LessonCompareButton.tsx';
import { LessonControls } from './LessonControls.tsx';
import { LessonFindings } from './LessonFindings.tsx';
import { LessonMetrics } from './LessonMetrics.tsx';
import { LessonSpeedup } from './LessonSpeedup.tsx';
import { LessonTimeline } from './LessonTimeline.tsx';
import { LessonWorkload } from './LessonWorkload.tsx';
import { findLesson } from './lesson-catalogue.ts';
import { lessonStore } from './lesson-store.ts';

interface LessonViewProps {
  readonly gpuAvailable: boolean;
}

/** One lesson: explanation, controls, the two Gantts on one scale, the speedup and the findings. */
export function LessonView({ gpuAvailable }: LessonViewProps) {
  const lessonId = useStore(lessonStore, (s) => s.lessonId);
  const status = useStore(lessonStore, (s) => s.status);
  const error = useStore(lessonStore, (s) => s.error);
  const lesson = lessonId === null ? undefined : findLesson(lessonId);
  const afterPitfallOn = useStore(lessonStore, (s) =>
    lesson === undefined ? false : s.params[lesson.pitfall.param] === lesson.pitfall.onValue,
  );
  if (lesson === undefined) {
    return <p className="lesson-muted">Pick a lesson.</p>;
  }
  return (
    <article className="lesson-view" data-testid={`lesson-${lesson.id}`} data-status={status}>
      <h2>{lesson.title}</h2>
      {lesson.explanation.map((paragraph) => (
        <p key={paragraph}>{paragraph}</p>
      ))}
      <LessonControls lesson={lesson} gpuAvailable={gpuAvailable} />
      {status === 'error' && (
        <p className="lesson-error" role="alert" data-testid="lesson-error">
          {error}
        </p>
      )}
      <LessonSpeedup />
      {lesson.figure === 'commCompute' && <LessonCommOverlap />}
      <LessonCompareButton />
      <section className="lesson-gantts">
        <h3>Before: {lesson.pitfall.onLabel}</h3>
        <LessonTimeline side="before" />
        <h3>
          After: {afterPitfallOn ? lesson.pitfall.onLabel : lesson.pitfall.offLabel}
          {afterPitfallOn ? ' (the pitfall kept: both runs are the same)' : ''}
        </h3>
        <LessonTimeline side="after" />
      </section>
      <h3>What changed</h3>
      <LessonFindings />
      <LessonMetrics />
      <LessonWorkload />
    </article>
  );
}
