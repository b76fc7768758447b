import { formatDurationNs } from '@streamscope/trace';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

/** The range marked with `M`: its duration, and a button that clears it. */
export function MarkChip() {
  const mark = useApp((s) => s.mark);
  if (mark === null) {
    return null;
  }
  return (
    <span className="mark-chip" data-testid="mark">
      marked{' '}
      <strong data-testid="mark-duration">{formatDurationNs(mark.endNs - mark.startNs)}</strong>
      <button
        type="button"
        className="quiet"
        title="Clear the mark (M)"
        onClick={() => appStore.getState().setMark(null)}
      >
        ×
      </button>
    </span>
  );
}
