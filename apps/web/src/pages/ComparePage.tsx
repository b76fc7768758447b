import { fitViewport } from '@streamscope/timeline';
import { useEffect, useState } from 'react';
import type { TraceAnalysis } from '../api/types.ts';
import { TimelineCanvas } from '../components/TimelineCanvas.tsx';
import { ensureTraceLoaded, loadAnalysis } from '../data/trace-loader.ts';
import { getAnalysisFor, getTrace } from '../data/trace-registry.ts';
import type { Change } from '../lib/compare-format.ts';
import {
  countChange,
  durationColumns,
  pointChange,
  relativeChange,
} from '../lib/compare-format.ts';
import { formatCount } from '../lib/format.ts';
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

/** One row of the compare table: both values in one unit (aligned), and the change. */
interface MetricRow {
  readonly name: string;
  readonly unit: string;
  readonly a: string;
  readonly b: string;
  readonly change: Change;
}

function durationRow(name: string, aNs: number, bNs: number): MetricRow {
  const columns = durationColumns(aNs, bNs);
  return { name, ...columns, change: relativeChange(aNs, bNs) };
}

function percentRow(name: string, a: number | null, b: number | null): MetricRow {
  const pct = (v: number | null): string => (v === null ? '—' : (v * 100).toFixed(1));
  return {
    name,
    unit: '%',
    a: pct(a),
    b: pct(b),
    change:
      a !== null && b !== null ? pointChange(a, b) : { text: 'n/a', reason: 'one run has none' },
  };
}

/** Communication and step rows, where either run has communication or steps. */
function classRows(ma: TraceAnalysis, mb: TraceAnalysis): MetricRow[] {
  const rows: MetricRow[] = [];
  if (ma.commComputeOverlap !== null || mb.commComputeOverlap !== null) {
    rows.push(
      durationRow('Communication', ma.communicationNs, mb.communicationNs),
      percentRow('Comm/compute overlap', ma.commComputeOverlap, mb.commComputeOverlap),
      durationRow('Exposed communication', ma.exposedCommunicationNs, mb.exposedCommunicationNs),
    );
  }
  if (ma.steps.count > 0 || mb.steps.count > 0) {
    rows.push(durationRow('Median step', ma.steps.medianStepNs, mb.steps.medianStepNs));
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
  const rows: MetricRow[] = [
    durationRow('Makespan', ma.makespanNs, mb.makespanNs),
    percentRow('GPU busy', ma.deviceUtilization, mb.deviceUtilization),
    durationRow('Stream gap time', ma.gapTotalNs, mb.gapTotalNs),
    durationRow('Compute kernels', ma.computeNs, mb.computeNs),
    {
      name: 'Ops',
      unit: 'count',
      a: formatCount(a.opCount),
      b: formatCount(b.opCount),
      change: relativeChange(a.opCount, b.opCount),
    },
    {
      name: 'Findings',
      unit: 'count',
      a: formatCount(ma.findings.length),
      b: formatCount(mb.findings.length),
      change: countChange(ma.findings.length, mb.findings.length),
    },
  ];
  // A ratio over copies only where a run copied: "0.0" would read as "nothing overlapped".
  if (ma.copyBusyNs > 0 || mb.copyBusyNs > 0) {
    const overlap = (m: TraceAnalysis): number | null =>
      m.copyBusyNs > 0 ? m.copyComputeOverlap : null;
    rows.splice(2, 0, percentRow('Copy/compute overlap', overlap(ma), overlap(mb)));
  }
  rows.splice(rows.length - 2, 0, ...classRows(ma, mb));
  return (
    <div className="stack">
      <p data-testid="compare-speedup">
        {speedup > 0 && Math.abs(speedup - 1) < 0.005 ? (
          // "1.00× slower" says nothing: the two took the same time to two decimals.
          <>B runs as fast as A (makespans within 0.5% of each other).</>
        ) : speedup >= 1 || speedup === 0 ? (
          <>
            B runs <strong>{speedup.toFixed(2)}×</strong> faster than A (makespan A / makespan B).
          </>
        ) : (
          <>
            B runs <strong>{(1 / speedup).toFixed(2)}×</strong> slower than A (makespan B / makespan
            A).
          </>
        )}
      </p>
      <table className="table compact compare-metrics" data-testid="compare-metrics">
        <thead>
          <tr>
            <th>Metric</th>
            <th>Unit</th>
            <th className="num">A</th>
            <th className="num">B</th>
            <th className="num">B vs A</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name} data-metric={row.name}>
              <td>{row.name}</td>
              <td className="muted">{row.unit}</td>
              <td className="num">{row.a}</td>
              <td className="num">{row.b}</td>
              <td className="num" title={row.change.reason}>
                {row.change.text}
                {row.change.reason !== undefined && (
                  <span className="muted small" data-testid="change-reason">
                    {' '}
                    ({row.change.reason.split(':')[0]})
                  </span>
                )}
              </td>
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
