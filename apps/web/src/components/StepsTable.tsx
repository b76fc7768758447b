import { formatDurationNs } from '@streamscope/trace';
import type { StepSummary } from '../api/types.ts';
import { placeInTrace } from '@streamscope/timeline';
import { shownTraceSpanNs } from '../data/show-window.ts';
import { windowAround } from '../lib/zoom-math.ts';
import { appStore } from '../store/index.ts';

/**
 * Profiler steps (ProfilerStep#N ranges, or the NVTX ranges `analyze --steps` names): their
 * count and typical time, and the slowest with what the GPU did in them. Click one to zoom to it.
 */
export function StepsTable({ steps }: { readonly steps: StepSummary }) {
  if (steps.count === 0) {
    return null;
  }
  const skewed = new Set(steps.skewedSteps);
  const anySkewedShown = steps.slowest.some((s) => skewed.has(s.name));
  return (
    <div className="stack" data-testid="steps">
      <h3>Steps</h3>
      <p className="small" data-testid="steps-summary">
        {steps.count} step{steps.count === 1 ? '' : 's'}: median{' '}
        {formatDurationNs(steps.medianStepNs)}, mean {formatDurationNs(steps.meanStepNs)}, max{' '}
        {formatDurationNs(steps.maxStepNs)}
      </p>
      <div className="steps-scroll">
        <table className="table compact" data-testid="steps-table">
          <thead>
            <tr>
              <th>Slowest</th>
              <th className="num">Time</th>
              <th className="num">GPU busy</th>
              <th className="num">Comm exposed</th>
              <th className="num">Idle</th>
            </tr>
          </thead>
          <tbody>
            {steps.slowest.map((s) => (
              <tr key={`${s.name}@${s.rank ?? ''}@${s.startNs}`} data-testid="step-row">
                <td className="name">
                  <button
                    type="button"
                    className="link"
                    onClick={() => zoomToStep(s.startNs, s.startNs + s.stepNs)}
                  >
                    {s.name}
                  </button>
                  {s.rank !== undefined && <span className="muted"> · rank {s.rank}</span>}
                  {skewed.has(s.name) && (
                    <span
                      className="muted"
                      title="Host/GPU clock mismatch, not work"
                      data-testid="step-skewed"
                    >
                      {' '}
                      *
                    </span>
                  )}
                </td>
                <td className="num">{formatDurationNs(s.stepNs)}</td>
                <td className="num">{formatDurationNs(s.gpuBusyNs)}</td>
                <td className="num">
                  {s.communicationNs > 0 ? formatDurationNs(s.exposedCommunicationNs) : '—'}
                </td>
                <td className="num">{formatDurationNs(s.idleNs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {anySkewedShown && (
        <p className="small muted" data-testid="steps-skewed-note">
          * longer than the GPU&apos;s whole span because the host and GPU clocks disagree (see the
          launch-links finding): its time is the mismatch, not work.
        </p>
      )}
    </div>
  );
}

function zoomToStep(startNs: number, endNs: number): void {
  const state = appStore.getState();
  const view = placeInTrace(windowAround(startNs, endNs), shownTraceSpanNs(state.traceId));
  state.setViewport(view.startNs, view.endNs);
}
