import { useApp } from '../store/use-app.ts';
import { useShallow } from 'zustand/react/shallow';

/** Runs the server has queued or is running, as the trace list reports them. */
export function QueueList() {
  const queue = useApp(
    useShallow((s) => s.traceList.filter((e) => e.status === 'queued' || e.status === 'running')),
  );
  return (
    <div className="stack" data-testid="run-queue">
      <h3>Queue</h3>
      {queue.length === 0 ? (
        <p className="muted">Nothing queued.</p>
      ) : (
        <ol>
          {queue.map((e) => (
            <li key={e.id} data-testid="queue-item">
              {e.title} <span className={`status status-${e.status}`}>{e.status}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
