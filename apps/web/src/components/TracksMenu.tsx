import { launchRangesByStream } from '@streamscope/analysis';
import { useEffect, useMemo, useRef, useState } from 'react';
import { getTrace } from '../data/trace-registry.ts';
import { appStore } from '../store/index.ts';
import type { TrackLaneName } from '../store/ui-slice.ts';
import { useApp } from '../store/use-app.ts';

/** Whether any stream of the open trace has ops launched inside a host (NVTX / CPU-op) range. */
function useHasHostRanges(open: boolean): boolean {
  const traceId = useApp((s) => s.traceId);
  const dataVersion = useApp((s) => s.dataVersion);
  return useMemo(() => {
    // Computed only while the menu is open: the projection walks every op of the trace.
    const trace = open ? getTrace(traceId) : undefined;
    return trace !== undefined && launchRangesByStream(trace).length > 0;
    // dataVersion: a live trace grows in place under the same object.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, traceId, dataVersion]);
}

/**
 * The Tracks menu: optional rows under each stream, off by default, kept in the URL. A dropdown
 * over the page (it moves nothing), closed by Esc, by a click outside it or by its button; on
 * closing, the keyboard goes back to the timeline `viewId` so its shortcuts work at once.
 */
export function TracksMenu({ viewId }: { readonly viewId: string }) {
  const lanes = useApp((s) => s.trackLanes);
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const hasHostRanges = useHasHostRanges(open);
  const toggle = (lane: TrackLaneName) => appStore.getState().toggleTrackLane(lane);

  useEffect(() => {
    if (!open) {
      return;
    }
    const close = (): void => {
      setOpen(false);
      document.querySelector<HTMLElement>(`[data-testid="${viewId}"]`)?.focus({
        preventScroll: true,
      });
    };
    // In the capture phase, before the timeline's keys: one Esc closes one layer. The shortcut
    // overlay opened over the menu is closed first (by the timeline's Esc); the next Esc closes the
    // menu and goes no further, so it does not also clear the selection under it.
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape' || appStore.getState().helpOpen) {
        return;
      }
      event.stopPropagation();
      close();
    };
    const onPointerDown = (event: PointerEvent): void => {
      if (!(event.target instanceof Node) || rootRef.current?.contains(event.target) !== true) {
        close();
      }
    };
    window.addEventListener('keydown', onKeyDown, true);
    window.addEventListener('pointerdown', onPointerDown, true);
    return () => {
      window.removeEventListener('keydown', onKeyDown, true);
      window.removeEventListener('pointerdown', onPointerDown, true);
    };
  }, [open, viewId]);

  return (
    <div className="tracks-menu" data-testid="tracks-menu" ref={rootRef}>
      <button
        type="button"
        data-testid="tracks-menu-button"
        aria-expanded={open}
        aria-haspopup="true"
        onClick={() => setOpen((was) => !was)}
      >
        Tracks ▾
      </button>
      {open && (
        <div className="tracks-menu-panel stack small" data-testid="tracks-menu-panel">
          <label
            title={
              hasHostRanges
                ? 'Under each stream: the NVTX / CPU-op range that launched its ops'
                : 'No op of this trace was launched inside an NVTX or CPU-op range'
            }
          >
            <input
              type="checkbox"
              data-testid="track-lanes-launch"
              checked={lanes.includes('launch')}
              disabled={!hasHostRanges && !lanes.includes('launch')}
              onChange={() => toggle('launch')}
            />{' '}
            Host ranges on the GPU
            {!hasHostRanges && (
              <small className="muted" data-testid="track-lanes-launch-note">
                {' '}
                (no host ranges in this trace)
              </small>
            )}
          </label>
          <label title="Under each stream: its launch queue depth over time (log scale), with the capacity">
            <input
              type="checkbox"
              data-testid="track-lanes-queue"
              checked={lanes.includes('queue')}
              onChange={() => toggle('queue')}
            />{' '}
            Launch queue depth
          </label>
        </div>
      )}
    </div>
  );
}
