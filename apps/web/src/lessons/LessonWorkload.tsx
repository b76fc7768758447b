import { useState } from 'react';
import { useStore } from 'zustand';
import { appStore } from '../store/index.ts';
import { findLesson } from './lesson-catalogue.ts';
import type { LessonSideName } from './lesson-finding.ts';
import { lessonStore } from './lesson-store.ts';

/**
 * The workloads behind the two runs, as JSON a learner can copy or open in the Run page's editor
 * (on the simulator with the lesson's device profile) to change and run.
 */
export function LessonWorkload() {
  const summary = useStore(lessonStore, (s) => s.summary);
  const backend = useStore(lessonStore, (s) => s.backend);
  const [side, setSide] = useState<LessonSideName>('after');
  const [copied, setCopied] = useState(false);
  if (summary === null) {
    return null;
  }
  const text = JSON.stringify(summary[side].workload, null, 2);
  const openInEditor = (): void => {
    const title = findLesson(summary.lessonId)?.title ?? summary.lessonId;
    const app = appStore.getState();
    app.loadWorkloadIntoEditor(
      summary[side].workload,
      `the lesson "${title}" (${side} run, ${summary.profile})`,
      backend === 'sim' ? { backend: 'sim', target: summary.profile } : { backend, target: '' },
    );
    app.navigate({ page: 'run' });
  };
  return (
    <details className="lesson-workload" data-testid="lesson-workload">
      <summary>Workload behind the {side} run</summary>
      <div className="lesson-row">
        <button type="button" onClick={() => setSide('before')} aria-pressed={side === 'before'}>
          before
        </button>
        <button type="button" onClick={() => setSide('after')} aria-pressed={side === 'after'}>
          after
        </button>
        <button
          type="button"
          className="primary"
          data-testid="lesson-workload-open"
          onClick={openInEditor}
        >
          open in the Run editor
        </button>
        <button
          type="button"
          data-testid="lesson-workload-copy"
          onClick={() => {
            void navigator.clipboard.writeText(text).then(() => setCopied(true));
          }}
        >
          {copied ? 'copied' : 'copy JSON for the Run editor'}
        </button>
      </div>
      <pre data-testid="lesson-workload-json">{text}</pre>
    </details>
  );
}
