import { useStore } from 'zustand';
import { appStore } from '../store/index.ts';
import { lessons } from './lesson-catalogue.ts';
import { lessonStore } from './lesson-store.ts';

/** The lessons, in teaching order; the open one is marked. */
export function LessonList() {
  const current = useStore(lessonStore, (s) => s.lessonId);
  return (
    <nav className="lesson-list" aria-label="Lessons">
      <ol>
        {lessons.map((lesson) => (
          <li key={lesson.id}>
            <button
              type="button"
              className={lesson.id === current ? 'lesson-list-item active' : 'lesson-list-item'}
              data-testid={`lesson-item-${lesson.id}`}
              aria-current={lesson.id === current ? 'page' : undefined}
              onClick={() => appStore.getState().navigate({ page: 'lessons', lessonId: lesson.id })}
            >
              <strong>{lesson.title}</strong>
              <span>{lesson.summary}</span>
            </button>
          </li>
        ))}
      </ol>
    </nav>
  );
}
