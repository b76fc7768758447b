import { cancelRun } from '../api/client.ts';
import { formatCount } from '../lib/format.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

/**
 * The active run: status, queue position, ops received so far, cancel and open. `stopLabel`
 * names the cancel button where it stops a profiled program (SIGINT; what arrived is kept).
 */
export function RunStatus({ stopLabel = 'Cancel' }: { readonly stopLabel?: string }) {
  const run = useApp((s) => s.activeRun);
  const page = useApp((s) => s.route.page);
  if (run === null) {
    return null;
  }
  const active = run.status === 'queued' || run.status === 'running';
  const cancel = async (): Promise<void> => {
    try {
      await cancelRun(run.runId);
    } catch (e) {
      appStore
        .getState()
        .notify('error', `cancel failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  return (
    <div className="run-status row wrap" data-testid="run-status" data-status={run.status}>
      <span className={`status status-${run.status}`} data-testid="run-state">
        {run.status}
      </span>
      {run.status === 'queued' && run.position !== null && (
        <span>position {run.position + 1} in the queue</span>
      )}
      <span data-testid="run-ops">{formatCount(run.opsReceived)} ops received</span>
      {run.reason !== null && <span className="muted">{run.reason}</span>}
      {active && (
        <button type="button" data-testid="cancel-run" onClick={() => void cancel()}>
          {stopLabel}
        </button>
      )}
      {!active && run.opsReceived > 0 && page !== 'trace' && (
        <button
          type="button"
          data-testid="open-run-trace"
          onClick={() => appStore.getState().navigate({ page: 'trace', traceId: run.runId })}
        >
          Open in trace view
        </button>
      )}
    </div>
  );
}
