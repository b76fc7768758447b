import { fitViewport } from '@streamscope/timeline';
import { formatDurationNs } from '@streamscope/trace';
import { useEffect, useState } from 'react';
import type { TraceAnalysis } from '../api/types.ts';
import { TimelineCanvas } from '../components/TimelineCanvas.tsx';
import { ensureTraceLoaded, loadAnalysis } from '../data/trace-loader.ts';
import { getAnalysisFor, getTrace } from '../data/trace-registry.ts';
import { formatCount, formatPercent } from '../lib/format.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

export interface Side {
  readonly id: string;
  readonly title: string;
  readonly opCount: number;
  readonly analysis: TraceAnalysis | undefined;
}

function side(id: string): Side | null {
  const trace = getTrace(id);
  if (trace === undefined) {
    return null;
  }
  return { id, title: trace.meta.title, opCount: trace.ops.count, analysis: getAnalysisFor(id) };
}

/** "+12.5%" for b relative to a. */
function relative(a: number, b: number): string {
  if (a === 0) {
    return '—';
  }
  const change = (b - a) / a;
  return `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
}

/** Communication and step rows, where either run has communication or steps. */
function classRows(ma: TraceAnalysis, mb: TraceAnalysis): [string, string, string, string][] {
  const rows: [string, string, string, string][] = [];
  if (ma.commComputeOverlap !== null || mb.commComputeOverlap !== null) {
    const pct = (v: number | null): string => (v === null ? '—' : formatPercent(v));
    rows.push(
      [
        'Communication',
        formatDurationNs(ma.communicationNs),
        formatDurationNs(mb.communicationNs),
        relative(ma.communicationNs, mb.communicationNs),
      ],
      [
        'Comm/compute overlap',
        pct(ma.commComputeOverlap),
        pct(mb.commComputeOverlap),
        ma.commComputeOverlap !== null && mb.commComputeOverlap !== null
          ? `${((mb.commComputeOverlap - ma.commComputeOverlap) * 100).toFixed(1)} pt`
          : '—',
      ],
      [
        'Exposed communication',
        formatDurationNs(ma.exposedCommunicationNs),
        formatDurationNs(mb.exposedCommunicationNs),
        relative(ma.exposedCommunicationNs, mb.exposedCommunicationNs),
      ],
    );
  }
  if (ma.steps.count > 0 || mb.steps.count > 0) {
    rows.push([
      'Median step',
      formatDurationNs(ma.steps.medianStepNs),
      formatDurationNs(mb.steps.medianStepNs),
      relative(ma.steps.medianStepNs, mb.steps.medianStepNs),
    ]);
  }
  return rows;
}

export function MetricsTable({ a, b }: { a: Side; b: Side }) {
  const ma = a.analysis;
  const mb = b.analysis;
  if (ma === undefined || mb === undefined) {
    return <p className="muted">Analysing both traces…</p>;
  }
  const speedup = mb.makespanNs > 0 ? ma.makespanNs / mb.makespanNs : 0;
  const rows: [string, string, string, string][] = [
    [
      'Makespan',
      formatDurationNs(ma.makespanNs),
      formatDurationNs(mb.makespanNs),
      relative(ma.makespanNs, mb.makespanNs),
    ],
    [
      'GPU busy',
      formatPercent(ma.deviceUtilization),
      formatPercent(mb.deviceUtilization),
      `${((mb.deviceUtilization - ma.deviceUtilization) * 100).toFixed(1)} pt`,
    ],
    [
      'Copy/compute overlap',
      formatPercent(ma.copyComputeOverlap),
      formatPercent(mb.copyComputeOverlap),
      `${((mb.copyComputeOverlap - ma.copyComputeOverlap) * 100).toFixed(1)} pt`,
    ],
    [
      'Stream gap time',
      formatDurationNs(ma.gapTotalNs),
      formatDurationNs(mb.gapTotalNs),
      relative(ma.gapTotalNs, mb.gapTotalNs),
    ],
    [
      'Compute kernels',
      formatDurationNs(ma.computeNs),
      formatDurationNs(mb.computeNs),
      relative(ma.computeNs, mb.computeNs),
    ],
    ['Ops', formatCount(a.opCount), formatCount(b.opCount), relative(a.opCount, b.opCount)],
    [
      'Findings',
      String(ma.findings.length),
      String(mb.findings.length),
      String(mb.findings.length - ma.findings.length),
    ],
  ];
  rows.splice(rows.length - 2, 0, ...classRows(ma, mb));
  return (
    <div className="stack">
      <p data-testid="compare-speedup">
        B runs <strong>{speedup.toFixed(2)}×</strong> {speedup >= 1 ? 'faster' : 'slower'} than A
        (makespan A / makespan B).
      </p>
      <table className="table compact" data-testid="compare-metrics">
        <thead>
          <tr>
            <th>Metric</th>
            <th className="num">A</th>
            <th className="num">B</th>
            <th className="num">B vs A</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, va, vb, diff]) => (
            <tr key={name} data-metric={name}>
              <td>{name}</td>
              <td className="num">{va}</td>
              <td className="num">{vb}</td>
              <td className="num">{diff}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Two traces one above the other on one time scale, with their metric differences. */
export function ComparePage() {
  const ids = useApp((s) =>
    s.route.page === 'compare' ? `${s.route.traceA}\u0000${s.route.traceB}` : '',
  );
  useApp((s) => s.dataVersion);
  const [error, setError] = useState<string | null>(null);
  const [idA = '', idB = ''] = ids.split('\u0000');

  useEffect(() => {
    if (idA === '' || idB === '') {
      return;
    }
    let live = true;
    setError(null);
    const state = appStore.getState();
    state.closeTrace();
    state.setViewport(0, 0);
    Promise.all([ensureTraceLoaded(idA), ensureTraceLoaded(idB)]).then(
      () => {
        if (!live) {
          return;
        }
        // One window for both: the longer trace, fitted, so equal times line up.
        const spanNs = Math.max(getTrace(idA)?.spanNs() ?? 0, getTrace(idB)?.spanNs() ?? 0);
        const view = fitViewport(spanNs);
        const s = appStore.getState();
        s.bumpDataVersion();
        s.setViewport(view.startNs, view.endNs);
        void loadAnalysis(idA);
        void loadAnalysis(idB);
      },
      (e: unknown) => {
        if (live) {
          setError(e instanceof Error ? e.message : String(e));
        }
      },
    );
    return () => {
      live = false;
    };
  }, [idA, idB]);

  const a = side(idA);
  const b = side(idB);
  return (
    <div className="stack compare">
      <div className="row spread">
        <h1>Compare</h1>
        <button
          type="button"
          data-testid="compare-fit"
          onClick={() => {
            const view = fitViewport(
              Math.max(getTrace(idA)?.spanNs() ?? 0, getTrace(idB)?.spanNs() ?? 0),
            );
            appStore.getState().setViewport(view.startNs, view.endNs);
          }}
        >
          Fit both
        </button>
      </div>
      {error !== null && (
        <div className="error-box" role="alert" data-testid="compare-error">
          {error}
        </div>
      )}
      {a !== null && b !== null && (
        <>
          <MetricsTable a={a} b={b} />
          <h3>A: {a.title}</h3>
          <div className="timeline-host half">
            <TimelineCanvas
              traceId={idA}
              viewId="compare-a"
              followSelection={false}
              ownFit={false}
            />
          </div>
          <h3>B: {b.title}</h3>
          <div className="timeline-host half">
            <TimelineCanvas
              traceId={idB}
              viewId="compare-b"
              followSelection={false}
              ownFit={false}
              keyboard={false}
            />
          </div>
        </>
      )}
    </div>
  );
}
