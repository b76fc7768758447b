import { formatDurationNs } from '@streamscope/trace';
import { getTiled, tiledModeNote } from '../data/tiled-loader.ts';
import { getTrace } from '../data/trace-registry.ts';
import { areaStats } from '../lib/area-stats.ts';
import { formatCount } from '../lib/format.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

/** Count, sum, average, min and max per kind and name for the ops in the area selection. */
export function AreaTable() {
  const traceId = useApp((s) => s.traceId);
  const area = useApp((s) => s.area);
  const hidden = useApp((s) => s.hiddenTracks);
  // Re-render when a live trace grows under the same id.
  useApp((s) => s.dataVersion);
  const trace = getTrace(traceId);
  if (trace === undefined || area === null) {
    return null;
  }
  if (getTiled(traceId) !== undefined) {
    // The ops outside the loaded window are not here: no numbers rather than wrong ones.
    return (
      <div className="panel muted" data-testid="area-panel-tiled">
        Area {formatDurationNs(area.startNs)} – {formatDurationNs(area.endNs)}: {tiledModeNote}
      </div>
    );
  }
  const tracks =
    area.tracks.length > 0
      ? area.tracks
      : trace.tracks.map((_, i) => i).filter((t) => !hidden.includes(t));
  const rows = areaStats(trace, area.startNs, area.endNs, tracks);
  const total = rows.reduce((n, r) => n + r.count, 0);
  return (
    <div className="panel" data-testid="area-panel">
      <div className="row spread">
        <h3>
          Area {formatDurationNs(area.startNs)} – {formatDurationNs(area.endNs)} (
          <span data-testid="area-count">{formatCount(total)}</span> ops)
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
          {rows.slice(0, 200).map((r) => (
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
      {rows.length > 200 && (
        <p className="muted small">Showing the 200 largest of {rows.length} groups.</p>
      )}
    </div>
  );
}
