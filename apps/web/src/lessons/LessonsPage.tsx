import { useEffect, useState } from 'react';
import { listBackends } from '../api/client.ts';
import { useApp } from '../store/use-app.ts';
import { LessonList } from './LessonList.tsx';
import { LessonView } from './LessonView.tsx';
import { lessons } from './lesson-catalogue.ts';
import { openLesson, setGpuRun } from './lesson-controller.ts';
import { gpuPairRunner, serverGpuRunner } from './lesson-gpu.ts';
import { lessonStore } from './lesson-store.ts';
import './lessons.css';

/** The overlap lab: the lesson list beside the open lesson. */
export function LessonsPage() {
  const routeLessonId = useApp((s) => (s.route.page === 'lessons' ? s.route.lessonId : undefined));
  const [gpuAvailable, setGpuAvailable] = useState(false);

  useEffect(() => {
    let live = true;
    listBackends().then(
      (backends) => {
        const cuda = backends.find((b) => b.name === 'cuda' && b.available);
        if (live && cuda !== undefined) {
          const target = cuda.targets[0] ?? '';
          setGpuRun(gpuPairRunner(serverGpuRunner(target), target === '' ? 'GPU' : target));
          setGpuAvailable(true);
        }
      },
      // Without the server the simulator still serves every lesson.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);

  // The route names the lesson (#/lessons/<id>); without one, stay on the open lesson or the first.
  useEffect(() => {
    const target = routeLessonId ?? lessonStore.getState().lessonId ?? lessons[0]?.id;
    if (target !== undefined && target !== lessonStore.getState().lessonId) {
      void openLesson(target);
    }
  }, [routeLessonId]);

  return (
    <div className="lessons-page" data-testid="lessons-page">
      <LessonList />
      <LessonView gpuAvailable={gpuAvailable} />
    </div>
  );
}
