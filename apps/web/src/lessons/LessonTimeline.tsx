import { createTimelineView } from '@streamscope/timeline';
import { memo, useEffect, useRef } from 'react';
import { registerView, unregisterView } from '../canvas/view-registry.ts';
import type { LessonSideName } from './lesson-finding.ts';
import { bindLessonTimeline } from './lesson-timeline-binding.ts';
import { attachLessonTimelineInput } from './lesson-timeline-input.ts';

interface LessonTimelineProps {
  readonly side: LessonSideName;
}

/** One of the two lesson Gantts. Mounts once; the binding redraws it outside React. */
function LessonTimelineInner({ side }: LessonTimelineProps) {
  const ref = useRef<HTMLCanvasElement>(null);
  const viewId = `lesson-gantt-${side}`;
  useEffect(() => {
    const canvas = ref.current;
    if (canvas === null) {
      return;
    }
    const view = createTimelineView(canvas, { gutterPx: 160 });
    const unbind = bindLessonTimeline(view, canvas, side, viewId);
    const detachInput = attachLessonTimelineInput(canvas, view);
    const observer = new ResizeObserver(() => view.resize());
    observer.observe(canvas);
    // Registered like the trace page's views: the test hooks read its rows by this id.
    registerView(viewId, view);
    return () => {
      unregisterView(viewId, view);
      observer.disconnect();
      detachInput();
      unbind();
      view.dispose();
    };
  }, [side, viewId]);
  return <canvas ref={ref} className="timeline-canvas lesson-gantt" data-testid={viewId} />;
}

export const LessonTimeline = memo(LessonTimelineInner);
