import type { ImportProgress } from '../api/import-progress.ts';
import { formatBytes } from '../api/import-progress.ts';

interface ImportProgressBarProps {
  readonly fileName: string;
  readonly progress: ImportProgress;
  /** Who parses: the server after an upload, or this browser's worker. */
  readonly where: 'server' | 'browser';
  readonly onCancel: () => void;
}

function stageLabel(progress: ImportProgress, where: 'server' | 'browser'): string {
  const bytes = `${formatBytes(progress.doneBytes)} of ${formatBytes(progress.totalBytes)}`;
  switch (progress.stage) {
    case 'uploading':
      return `uploading: ${bytes}`;
    case 'exporting':
      return `all ${formatBytes(progress.totalBytes)} sent; nsys exports the report on the server`;
    case 'parsing': {
      const place = where === 'server' ? 'on the server' : 'here';
      // An SQLite export is read whole before sql.js opens it: the bytes end before the work,
      // which then goes table by table.
      if (progress.doneBytes < progress.totalBytes) {
        return `reading ${place}: ${bytes}`;
      }
      const all = `all ${formatBytes(progress.totalBytes)} read`;
      return progress.table === undefined
        ? `${all}; building the trace ${place}`
        : `${all}; reading its ${progress.table} ${place}`;
    }
    case 'storing':
      return 'storing the trace';
  }
}

/** One bar for the whole import (upload, then parse), its stage in words, and Cancel. */
export function ImportProgressBar({ fileName, progress, where, onCancel }: ImportProgressBarProps) {
  return (
    <div
      className="row wrap"
      data-testid="import-progress"
      data-stage={progress.stage}
      data-done-bytes={progress.doneBytes}
    >
      <span>{fileName}</span>
      <progress max={1} value={progress.fraction} data-testid="import-progress-bar" />
      <span>{Math.round(progress.fraction * 100)}%</span>
      <span className="muted" data-testid="import-stage">
        {stageLabel(progress, where)}
      </span>
      <button type="button" className="quiet" data-testid="import-cancel" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
