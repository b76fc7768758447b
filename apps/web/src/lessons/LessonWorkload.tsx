import { useState } from 'react';
import { useStore } from 'zustand';
import type { LessonSideName } from './lesson-finding.ts';
import { lessonStore } from './lesson-store.ts';

/** The workloads behind the two runs, as JSON a learner can take to the editor. */
export function LessonWorkload() {
  const summary = useStore(lessonStore, (s) => s.summary);
  const [side, setSide] = useState<LessonSideName>('after');
  const [copied, setCopied] = useState(false);
  if (summary === null) {
    return null;
  }
  const text = JSON.stringify(summary[side].workload, null, 2);
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
