import { displayOrder, trackLabels } from '@streamscope/trace';
import { getTrace } from '../data/trace-registry.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

/**
 * Pin streams to the top or hide them; the canvas reads the lists from the store. Listed in the
 * timeline's row order (`displayOrder`, as lib/stream-order.ts).
 */
export function StreamPanel() {
  const traceId = useApp((s) => s.traceId);
  const pinned = useApp((s) => s.pinnedTracks);
  const hidden = useApp((s) => s.hiddenTracks);
  useApp((s) => s.dataVersion);
  const trace = getTrace(traceId);
  if (trace === undefined) {
    return null;
  }
  // A host thread is no stream: count GPU streams, and name host threads apart.
  const streamCount = trace.tracks.filter((t) => t.kind === 'gpu-stream').length;
  const hostCount = trace.tracks.length - streamCount;
  return (
    <details className="panel" data-testid="stream-panel">
      <summary data-testid="stream-panel-summary">
        Streams ({streamCount}){hostCount > 0 ? ` · host threads (${hostCount})` : ''}
        {hidden.length > 0 ? ` · ${hidden.length} hidden` : ''}
      </summary>
      <ul className="plain streams">
        {displayOrder(trace.tracks).map((i) => {
          const label = trackLabels(trace.tracks)[i] ?? `track ${i}`;
          return (
            <li key={i} className="row" data-testid="stream-item" data-track={i}>
              <span className="name" title={label}>
                {label}
              </span>
              <button
                type="button"
                className={pinned.includes(i) ? 'toggle on' : 'toggle'}
                aria-pressed={pinned.includes(i)}
                data-testid="pin-stream"
                onClick={() => appStore.getState().togglePinnedTrack(i)}
              >
                pin
              </button>
              <button
                type="button"
                className={hidden.includes(i) ? 'toggle on' : 'toggle'}
                aria-pressed={hidden.includes(i)}
                data-testid="hide-stream"
                onClick={() => appStore.getState().toggleHiddenTrack(i)}
              >
                hide
              </button>
            </li>
          );
        })}
      </ul>
    </details>
  );
}
