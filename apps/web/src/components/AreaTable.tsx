import { getTiled } from '../data/tiled-loader.ts';
import { getTrace } from '../data/trace-registry.ts';
import { areaStats } from '../lib/area-stats.ts';
import { useApp } from '../store/use-app.ts';
import { AreaPanel } from './AreaPanel.tsx';
import { TiledAreaTable } from './TiledAreaTable.tsx';

/** Most groups the table lists. */
const shownGroups = 200;

/** Count, sum, average, min and max per kind and name for the ops in the area selection. */
export function AreaTable() {
  const traceId = useApp((s) => s.traceId);
  const area = useApp((s) => s.area);
  const hidden = useApp((s) => s.hiddenTracks);
  // Re-render when a live trace grows under the same id.
  useApp((s) => s.dataVersion);
  const trace = getTrace(traceId);
  if (trace === undefined || area === null || traceId === null) {
    return null;
  }
  const allTracks = trace.tracks.map((_, i) => i);
  const tracks =
    area.tracks.length > 0 ? area.tracks : allTracks.filter((t) => !hidden.includes(t));
  if (getTiled(traceId) !== undefined) {
    // The page holds a window: the server counts the whole trace's ops in the area.
    const asked = tracks.length === allTracks.length ? [] : tracks;
    return <TiledAreaTable traceId={traceId} area={area} tracks={asked} />;
  }
  const rows = areaStats(trace, area.startNs, area.endNs, tracks);
  const total = rows.reduce((n, r) => n + r.count, 0);
  return (
    <AreaPanel
      startNs={area.startNs}
      endNs={area.endNs}
      total={total}
      rows={rows.slice(0, shownGroups)}
      groupCount={rows.length}
    />
  );
}
