import { useEffect, useState } from 'react';
import type { AreaSelection } from '@streamscope/timeline';
import type { TrackInfo } from '@streamscope/trace';
import { formatDurationNs } from '@streamscope/trace';
import type { ServerArea } from '../data/tile-queries.ts';
import { getServerArea } from '../data/tile-queries.ts';
import { getTrace } from '../data/trace-registry.ts';
import { formatCount, formatPercent } from '../lib/format.ts';
import { AreaPanel } from './AreaPanel.tsx';

type Answer =
  | { readonly key: string; readonly area: ServerArea }
  | { readonly key: string; readonly error: string };

function trackName(info: TrackInfo | undefined, track: number): string {
  if (info === undefined) {
    return `track ${track}`;
  }
  if (info.name !== '') {
    return info.name;
  }
  return info.kind === 'gpu-stream' ? `Stream ${info.streamId}` : `Thread ${info.tid}`;
}

/**
 * The area table of a big trace in tiled mode: the server aggregates the whole trace's ops in the
 * area (the page holds only a window), with each track's busy time in the range below.
 */
export function TiledAreaTable(props: {
  readonly traceId: string;
  readonly area: AreaSelection;
  /** Tracks to count; every track when empty. */
  readonly tracks: readonly number[];
}) {
  const { traceId, area, tracks } = props;
  const key = JSON.stringify([traceId, area.startNs, area.endNs, tracks]);
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  useEffect(() => {
    let live = true;
    getServerArea(traceId, area.startNs, area.endNs, tracks).then(
      (result) => live && setAnswer({ key, area: result }),
      (error: unknown) =>
        live && setAnswer({ key, error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
    // `key` stands for traceId, the area's range and the tracks.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const heading = `Area ${formatDurationNs(area.startNs)} – ${formatDurationNs(area.endNs)}`;
  if (answer?.key !== key) {
    return (
      <div className="panel muted" data-testid="area-panel-loading">
        {heading}: counting the whole trace&apos;s ops on the server…
      </div>
    );
  }
  if ('error' in answer) {
    return (
      <div className="panel" data-testid="area-panel-error">
        {heading}: {answer.error}
      </div>
    );
  }
  const result = answer.area;
  const trace = getTrace(traceId);
  const spanNs = Math.max(1, area.endNs - area.startNs);
  return (
    <AreaPanel
      startNs={area.startNs}
      endNs={area.endNs}
      total={result.count}
      rows={result.groups}
      groupCount={result.groupCount}
    >
      <table className="table compact" data-testid="area-tracks">
        <thead>
          <tr>
            <th>Track</th>
            <th className="num">Ops</th>
            <th className="num">Busy</th>
          </tr>
        </thead>
        <tbody>
          {result.tracks.map((t) => (
            <tr key={t.track} data-testid="area-track-row" data-track={t.track}>
              <td className="name">{trackName(trace?.tracks[t.track], t.track)}</td>
              <td className="num">{formatCount(t.count)}</td>
              <td className="num">
                {formatDurationNs(t.busyNs)} ({formatPercent(t.busyNs / spanNs)})
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </AreaPanel>
  );
}
