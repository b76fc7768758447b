import { useShallow } from 'zustand/react/shallow';
import { cancelRun } from '../api/client.ts';
import type { TraceEntry } from '../api/types.ts';
import { followRun } from '../data/trace-loader.ts';
import { formatCreatedAt } from '../lib/format.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

/**
 * Runs the server has queued or is running, each on its own: when it was started and on what,
 * watch it in the live view, cancel it. Simulator runs run side by side (the server's
 * --concurrent-runs); GPU runs take turns on each GPU, so those wait "queued".
 */
export function QueueList() {
  const inProgress = useApp(
    useShallow((s) => s.traceList.filter((e) => e.status === 'queued' || e.status === 'running')),
  );
  const watching = useApp((s) => s.activeRun?.runId ?? null);
  return (
    <div className="stack" data-testid="run-queue">
      <h3>In progress</h3>
      {inProgress.length === 0 ? (
        <p className="muted">No run is queued or running.</p>
      ) : (
        <ol className="queue">
          {inProgress.map((e) => (
            <li key={e.id} data-testid="queue-item" data-run-id={e.id} data-status={e.status}>
              <div>
                {e.title}{' '}
                <span className={`status status-${e.status}`} data-testid="queue-item-status">
                  {e.status}
                </span>
              </div>
              <div className="muted small">
                {formatCreatedAt(e.createdAt)} · {whereItRuns(e)} · {e.id}
              </div>
              <div className="row">
                <button
                  type="button"
                  className="quiet"
                  data-testid="queue-watch"
                  disabled={watching === e.id}
                  onClick={() => watch(e)}
                >
                  {watching === e.id ? 'Watching' : 'Watch'}
                </button>
                <button
                  type="button"
                  className="quiet"
                  data-testid="queue-cancel"
                  onClick={() => void cancel(e.id)}
                >
                  Cancel
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function whereItRuns(e: TraceEntry): string {
  const backend = e.backend || e.format;
  return e.target === '' ? backend : `${backend} · ${e.target}`;
}

function watch(e: TraceEntry): void {
  appStore.getState().startRun(e.id, e.status === 'running' ? 'running' : 'queued', null);
  followRun(e.id);
}

async function cancel(runId: string): Promise<void> {
  try {
    await cancelRun(runId);
  } catch (error) {
    appStore
      .getState()
      .notify('error', `cancel failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
