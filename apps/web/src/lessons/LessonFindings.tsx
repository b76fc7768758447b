import { useStore } from 'zustand';
import type { LessonFinding } from './lesson-finding.ts';
import { lessonStore, toggleHighlight } from './lesson-store.ts';

const toneLabel: Record<LessonFinding['tone'], string> = {
  fixed: 'gone after',
  reduced: 'smaller after',
  introduced: 'new after',
  change: 'changed',
};

/** What the analyses say changed; clicking one marks its ops on its side's timeline. */
export function LessonFindings() {
  const findings = useStore(lessonStore, (s) => s.summary?.findings);
  const active = useStore(lessonStore, (s) => s.highlight?.key);
  if (findings === undefined) {
    return null;
  }
  if (findings.length === 0) {
    return (
      <p className="lesson-muted" data-testid="lesson-findings-empty">
        The analyses of the two runs find no difference worth reporting.
      </p>
    );
  }
  return (
    <ul className="lesson-findings" data-testid="lesson-findings">
      {findings.map((finding) => (
        <li key={finding.key}>
          <button
            type="button"
            className={finding.key === active ? 'lesson-finding active' : 'lesson-finding'}
            data-testid="lesson-finding"
            data-key={finding.key}
            data-side={finding.side}
            data-ops={finding.opIndices.length}
            aria-pressed={finding.key === active}
            onClick={() => toggleHighlight(finding)}
          >
            <span className={`lesson-tone lesson-tone-${finding.tone}`}>
              {toneLabel[finding.tone]}
            </span>
            <strong>{finding.title}</strong>
            <span>{finding.message}</span>
            <small>
              {finding.opIndices.length} ops on the {finding.side} timeline
            </small>
          </button>
        </li>
      ))}
    </ul>
  );
}
