import { Fragment } from 'react';
import { formatDurationNs } from '@streamscope/trace';
import type { StepRow, StepSummary } from '../api/types.ts';
import { placeInTrace } from '@streamscope/timeline';
import { shownTraceSpanNs } from '../data/show-window.ts';
import { durationColumn, formatInColumn } from '../lib/duration-column.ts';
import { namePieces } from '../lib/name-breaks.ts';
import { windowAround } from '../lib/zoom-math.ts';
import { appStore } from '../store/index.ts';

/**
 * Profiler steps (ProfilerStep#N ranges, or the NVTX ranges `analyze --steps` names): their
 * count and typical time, and the slowest with what the GPU did in them. Click one to zoom to it.
 * The table fits the side panel: its durations share one unit, named in the caption, and a
 * row's tooltip gives every figure of the step with its own unit.
 */
export function StepsTable({ steps }: { readonly steps: StepSummary }) {
  if (steps.count === 0) {
    return null;
  }
  const skewed = new Set(steps.skewedSteps);
  const anySkewedShown = steps.slowest.some((s) => skewed.has(s.name));
  const column = durationColumn(
    Math.max(0, ...steps.slowest.flatMap((s) => [s.stepNs, s.gpuBusyNs, s.idleNs])),
  );
  const cell = (ns: number) => formatInColumn(ns, column);
  return (
    <div className="stack" data-testid="steps">
      <h3>Steps</h3>
      <p className="small" data-testid="steps-summary">
        {steps.count} step{steps.count === 1 ? '' : 's'}: median{' '}
        {formatDurationNs(steps.medianStepNs)}, mean {formatDurationNs(steps.meanStepNs)}, max{' '}
        {formatDurationNs(steps.maxStepNs)}
      </p>
      <div className="steps-scroll">
        <table className="table compact steps-table" data-testid="steps-table">
          <caption data-testid="steps-caption">
            {steps.slowest.length === steps.count
              ? `Slowest first, in ${column.unit}`
              : `The ${steps.slowest.length} slowest, in ${column.unit}`}
          </caption>
          <thead>
            <tr>
              <th>Step</th>
              <th className="num">Time</th>
              <th className="num">GPU busy</th>
              <th
                className="num"
                title="Collectives not hidden under compute (pipeline send/recv not counted)"
              >
                Comm exposed
              </th>
              <th className="num">Idle</th>
            </tr>
          </thead>
          <tbody>
            {steps.slowest.map((s) => (
              <tr
                key={`${s.name}@${s.rank ?? ''}@${s.startNs}`}
                data-testid="step-row"
                title={stepDetails(s)}
              >
                <td className="name">
                  <button
                    type="button"
                    className="link"
                    onClick={() => zoomToStep(s.startNs, s.startNs + s.stepNs)}
                  >
                    <StepName name={s.name} rank={s.rank} />
                  </button>
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
                <td className="num">{cell(s.stepNs)}</td>
                <td className="num">{cell(s.gpuBusyNs)}</td>
                <td className="num">
                  {s.communicationNs > 0 ? cell(s.exposedCommunicationNs) : '—'}
                </td>
                <td className="num">{cell(s.idleNs)}</td>
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

/**
 * A step's name and rank, wrapping in a narrow panel between the name's parts ("ProfilerStep" /
 * "#3 · rank 1"), never inside a word nor between the step's number and its rank.
 */
function StepName({ name, rank }: { readonly name: string; readonly rank: number | undefined }) {
  const pieces = namePieces(name);
  const last = pieces.length - 1;
  return (
    <>
      {pieces.slice(0, last).map((piece, i) => (
        <Fragment key={i}>
          {piece}
          <wbr />
        </Fragment>
      ))}
      <span className="nowrap">
        {pieces[last]}
        {rank !== undefined && <span className="muted"> · rank {rank}</span>}
      </span>
    </>
  );
}

/** Every figure of a step, each with its own unit, for the row's tooltip. */
function stepDetails(step: StepRow): string {
  const who = step.rank === undefined ? step.name : `${step.name} · rank ${step.rank}`;
  const exposed = formatDurationNs(step.exposedCommunicationNs);
  const pointToPointNs = step.pointToPointNs ?? 0;
  // A pipeline stage's sends and receives wait for the other stages: said apart, never exposed.
  const pipeline =
    pointToPointNs > 0
      ? `, pipeline send/recv ${formatDurationNs(pointToPointNs)} (waiting for other stages)`
      : '';
  const communication =
    step.communicationNs > 0
      ? `communication ${formatDurationNs(step.communicationNs)} (${exposed} exposed, not under compute)`
      : pointToPointNs > 0
        ? 'no collectives'
        : 'no communication';
  const busy = formatDurationNs(step.gpuBusyNs);
  return (
    `${who}: ${formatDurationNs(step.stepNs)} from ${formatDurationNs(step.startNs)}; ` +
    `GPU busy ${busy}, ${communication}${pipeline}, idle ${formatDurationNs(step.idleNs)}`
  );
}

function zoomToStep(startNs: number, endNs: number): void {
  const state = appStore.getState();
  const view = placeInTrace(windowAround(startNs, endNs), shownTraceSpanNs(state.traceId));
  state.setViewport(view.startNs, view.endNs);
}
