import type { ReactNode } from 'react';
import { useState } from 'react';
import type { TraceEntry } from '../api/types.ts';
import { appStore } from '../store/index.ts';
import { formatCount, formatCreatedAt, formatSpan } from '../lib/format.ts';

interface TraceTableProps {
  readonly entries: readonly TraceEntry[];
  /** Ids ticked for comparison; omit to hide the column. */
  readonly picked?: readonly string[];
  readonly onPick?: (id: string) => void;
  readonly onDelete?: (id: string) => void;
  /** What to show when there is no trace (default: a line saying so). */
  readonly empty?: ReactNode;
}

const openable = new Set(['finished', 'imported', 'cancelled', 'failed', 'ready']);

export function TraceTable({ entries, picked, onPick, onDelete, empty }: TraceTableProps) {
  if (entries.length === 0) {
    return (
      <div className="empty" data-testid="trace-list-empty">
        {empty ?? <p>No traces yet.</p>}
      </div>
    );
  }
  return (
    <table className="table" data-testid="trace-list">
      <thead>
        <tr>
          {picked !== undefined && <th aria-label="Compare" />}
          <th>Title</th>
          <th>Source</th>
          <th>Status</th>
          <th className="num">Ops</th>
          <th className="num">Span</th>
          <th>Created</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.id} data-testid="trace-row" data-trace-id={e.id} data-status={e.status}>
            {picked !== undefined && (
              <td>
                <input
                  type="checkbox"
                  aria-label={`Compare ${e.title}`}
                  data-testid="compare-pick"
                  checked={picked.includes(e.id)}
                  onChange={() => onPick?.(e.id)}
                />
              </td>
            )}
            <td>
              <button
                type="button"
                className="link"
                data-testid="open-trace"
                disabled={!openable.has(e.status) || e.opCount === 0}
                onClick={() => appStore.getState().navigate({ page: 'trace', traceId: e.id })}
              >
                {e.title}
              </button>
              {e.reason !== '' && <div className="muted small">{e.reason}</div>}
            </td>
            <td>
              {e.source === 'import'
                ? `import · ${e.format}`
                : `run · ${e.backend || e.format}${e.target === '' ? '' : ` · ${e.target}`}`}
            </td>
            <td>
              <span className={`status status-${e.status}`}>{e.status}</span>
            </td>
            <td className="num" data-testid="trace-op-count">
              {formatCount(e.opCount)}
            </td>
            <td className="num">{formatSpan(e.spanNs)}</td>
            <td>{formatCreatedAt(e.createdAt)}</td>
            <td>
              {onDelete !== undefined && (
                <DeleteButton id={e.id} title={e.title} onDelete={onDelete} />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Delete asks once more in place: "Delete" becomes "Delete for good" and "Keep". */
function DeleteButton({
  id,
  title,
  onDelete,
}: {
  readonly id: string;
  readonly title: string;
  readonly onDelete: (id: string) => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        className="quiet"
        data-testid="delete-trace"
        onClick={() => setAsking(true)}
      >
        Delete
      </button>
    );
  }
  return (
    <span className="row" role="group" aria-label={`Delete ${title}?`}>
      <button
        type="button"
        className="danger"
        data-testid="delete-confirm"
        // Focus lands here so Enter confirms and Escape (below) keeps.
        autoFocus
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            setAsking(false);
          }
        }}
        onClick={() => onDelete(id)}
      >
        Delete for good
      </button>
      <button
        type="button"
        className="quiet"
        data-testid="delete-keep"
        onClick={() => setAsking(false)}
      >
        Keep
      </button>
    </span>
  );
}
