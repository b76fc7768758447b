import { formatDurationNs } from '@streamscope/trace';
import { getTiled } from '../data/tiled-loader.ts';
import { getAnalysisFailure, getAnalysisFor, getTrace } from '../data/trace-registry.ts';
import { showOpSet } from '../data/op-set-actions.ts';
import { showTiledOps } from '../data/tiled-findings.ts';
import { formatPercent } from '../lib/format.ts';
import { inStreamOrder, streamLabelWithDevice } from '../lib/stream-order.ts';
import { useApp } from '../store/use-app.ts';
import { StepsTable } from './StepsTable.tsx';

/** Overlap and utilization summary, gap causes and the rule findings, beside the Gantt. */
export function AnalysisPanel() {
  const traceId = useApp((s) => s.traceId);
  useApp((s) => s.dataVersion);
  const analysis = getAnalysisFor(traceId);
  const trace = getTrace(traceId);
  // Stream ids repeat across GPUs: name the device (once) when the trace has more than one.
  const streamName = (track: number, label: string): string =>
    streamLabelWithDevice(trace?.tracks[track], label, trace?.devices.length ?? 0);
  const tiled = traceId !== null && getTiled(traceId) !== undefined;
  const failure = analysis === undefined ? getAnalysisFailure(traceId) : undefined;
  if (failure !== undefined) {
    // Said where the analysis would be, for as long as the trace is open (the toast goes).
    return (
      <div className="panel" data-testid="analysis-panel">
        <p className="error" data-testid="analysis-failed">
          No analysis: {failure}
        </p>
      </div>
    );
  }
  if (analysis === undefined && tiled) {
    return (
      <div className="panel" data-testid="analysis-panel">
        <p className="muted" data-testid="analysis-tiled">
          Analysing the whole trace on the server…
        </p>
      </div>
    );
  }
  if (analysis === undefined) {
    return (
      <div className="panel" data-testid="analysis-panel">
        <p className="muted">Analysing…</p>
      </div>
    );
  }
  return (
    <div className="panel stack" data-testid="analysis-panel">
      <h3>Summary</h3>
      <dl className="kv">
        <dt>Makespan</dt>
        <dd data-testid="metric-makespan">{formatDurationNs(analysis.makespanNs)}</dd>
        <dt>GPU busy</dt>
        <dd data-testid="metric-utilization">{formatPercent(analysis.deviceUtilization)}</dd>
        <dt>Copy/compute overlap</dt>
        <dd data-testid="metric-overlap">
          {/* No copies: no ratio to show, rather than a 0.0% that reads as "nothing overlapped". */}
          {analysis.copyBusyNs > 0 ? formatPercent(analysis.copyComputeOverlap) : '—'}
        </dd>
        <dt>Kernels</dt>
        <dd data-testid="metric-kernel-classes">
          compute {formatDurationNs(analysis.computeNs)}
          {analysis.communicationNs > 0 &&
            ` · communication ${formatDurationNs(analysis.communicationNs)}`}
          {analysis.memoryKernelNs > 0 && ` · memory ${formatDurationNs(analysis.memoryKernelNs)}`}
        </dd>
        {analysis.commComputeOverlap !== null && (
          <>
            <dt>Comm/compute overlap</dt>
            <dd data-testid="metric-comm-overlap">
              {formatPercent(analysis.commComputeOverlap)} (exposed{' '}
              {formatDurationNs(analysis.exposedCommunicationNs)})
            </dd>
          </>
        )}
        {analysis.launchQueueFullNs > 0 && (
          <>
            <dt>Launch queue full</dt>
            <dd data-testid="metric-queue-full">{formatDurationNs(analysis.launchQueueFullNs)}</dd>
          </>
        )}
        {/* Two counts that differ by what they count: each says which, and that it counts gaps of
            any length (the GPU-gaps finding counts those past its threshold). The labels stay
            short: the summary's label column takes the width its longest label needs. */}
        <dt>Idle gaps on streams (per stream)</dt>
        <dd data-testid="metric-stream-gaps">
          {analysis.gapCount} of any length ({formatDurationNs(analysis.gapTotalNs)})
        </dd>
        <dt>GPU idle gaps (no stream busy)</dt>
        <dd data-testid="metric-gpu-gaps">
          {analysis.gpuGapCount} of any length ({formatDurationNs(analysis.gpuGapTotalNs)})
        </dd>
      </dl>
      {analysis.gapNsByCause.length > 0 && (
        <ul className="small plain">
          {analysis.gapNsByCause.map((g) => (
            <li key={g.cause}>
              idle, {g.cause}: {formatDurationNs(g.ns)}
            </li>
          ))}
        </ul>
      )}
      {analysis.streams.length > 0 && (
        <table className="table compact" data-testid="summary-streams">
          <tbody>
            {(trace === undefined
              ? analysis.streams
              : inStreamOrder(trace.tracks, analysis.streams)
            ).map((s) => (
              <tr key={s.track} data-track={s.track}>
                <td className="name">{streamName(s.track, s.label)}</td>
                <td className="num">{formatPercent(s.utilization)}</td>
                <td className="bar-cell">
                  <span className="bar" style={{ width: `${Math.round(s.utilization * 100)}%` }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <StepsTable steps={analysis.steps} />
      <h3>Findings</h3>
      {analysis.findings.length === 0 ? (
        <p className="muted small" data-testid="no-findings">
          No rule fired.
        </p>
      ) : (
        <ul className="findings plain" data-testid="findings">
          {analysis.findings.map((f, i) => (
            <li
              key={i}
              className={`finding severity-${f.severity}`}
              data-testid="finding"
              data-rule={f.ruleId}
            >
              <strong>{f.title}</strong>
              <p className="small">{f.message}</p>
              <div className="row small">
                {f.estimatedSavingNs > 0 && (
                  <span>could save ~{formatDurationNs(f.estimatedSavingNs)}</span>
                )}
                {f.opIndices[0] !== undefined && (
                  <button
                    type="button"
                    className="link"
                    data-testid="finding-show"
                    onClick={() =>
                      // Tiled mode: the finding's ops are found on the server, then in a window.
                      tiled
                        ? void showTiledOps(traceId, f.opIndices, f.title)
                        : showOpSet(f.opIndices, f.title)
                    }
                  >
                    {/* The analysis lists at most maxFindingOps of them: say so where it capped. */}
                    show ({f.opIndices.length}
                    {f.opCount > f.opIndices.length
                      ? ` of ${f.opCount.toLocaleString('en-US')}`
                      : ''}{' '}
                    {f.opCount === 1 ? 'op' : 'ops'})
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
