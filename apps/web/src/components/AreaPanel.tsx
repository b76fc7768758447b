import type { ReactNode } from 'react';
import { formatDurationNs } from '@streamscope/trace';
import type { AreaStatRow } from '../lib/area-stats.ts';
import { formatCount } from '../lib/format.ts';
import { appStore } from '../store/index.ts';

/** The area table itself: a heading with the op count, a row per (kind, name) group. */
export function AreaPanel(props: {
  readonly startNs: number;
  readonly endNs: number;
  readonly total: number;
  /** The largest groups, at most 200. */
  readonly rows: readonly AreaStatRow[];
  readonly groupCount: number;
  readonly children?: ReactNode;
}) {
  const { rows } = props;
  return (
    <div className="panel" data-testid="area-panel">
      <div className="row spread">
        <h3>
          Area {formatDurationNs(props.startNs)} – {formatDurationNs(props.endNs)} (
          <span data-testid="area-count">{formatCount(props.total)}</span> ops)
        </h3>
        <button
          type="button"
          className="quiet"
          onClick={() => appStore.getState().selectArea(null)}
        >
          Clear
        </button>
      </div>
      <table className="table compact" data-testid="area-table">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Name</th>
            <th className="num">Count</th>
            <th className="num">Sum</th>
            <th className="num">Avg</th>
            <th className="num">Min</th>
            <th className="num">Max</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.kind}\u0000${r.name}`} data-testid="area-row">
              <td>{r.kind}</td>
              <td className="name">{r.name}</td>
              <td className="num">{formatCount(r.count)}</td>
              <td className="num">{formatDurationNs(r.sumNs)}</td>
              <td className="num">{formatDurationNs(r.avgNs)}</td>
              <td className="num">{formatDurationNs(r.minNs)}</td>
              <td className="num">{formatDurationNs(r.maxNs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.groupCount > rows.length && (
        <p className="muted small">
          Showing the {rows.length} largest of {props.groupCount} groups.
        </p>
      )}
      {props.children}
    </div>
  );
}
