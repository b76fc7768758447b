import { windowLabel } from '@streamscope/timeline';
import type { TimelineView } from '@streamscope/timeline';
import { getView } from '../canvas/view-registry.ts';
import { getTrace } from '../data/trace-registry.ts';
import { zoomToSelection } from '../data/view-actions.ts';
import { downloadBlob, exportFileName } from '../lib/download.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';
import { beginActivity } from '../test-mode/activity.ts';
import { Legend } from './Legend.tsx';
import { SearchBox } from './SearchBox.tsx';
import { TracksMenu } from './TracksMenu.tsx';

interface TraceToolbarProps {
  readonly viewId: string;
}

/** `resnet-0.00-2.26ms.png`: the trace's name without its file's extensions, and the window. */
function fileNameOf(view: TimelineView, title: string, extension: string): string {
  return exportFileName(title, windowLabel(view.getViewport()).file, extension);
}

async function exportPng(viewId: string, title: string): Promise<void> {
  const view = getView(viewId);
  if (view === undefined) {
    return;
  }
  const end = beginActivity();
  try {
    // Twice the CSS size, whatever the screen: crisp on high-density screens and in print.
    downloadBlob(await view.exportPng({ title, pixelRatio: 2 }), fileNameOf(view, title, 'png'));
  } catch (e) {
    appStore
      .getState()
      .notify('error', `PNG export failed: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    end();
  }
}

function exportSvg(viewId: string, title: string): void {
  const view = getView(viewId);
  if (view !== undefined) {
    downloadBlob(
      new Blob([view.exportSvg({ title })], { type: 'image/svg+xml' }),
      fileNameOf(view, title, 'svg'),
    );
  }
}

/** Fit, zoom to selection, search, export and the link that reopens this view. */
export function TraceToolbar({ viewId }: TraceToolbarProps) {
  const traceId = useApp((s) => s.traceId);
  const hasSelection = useApp((s) => s.selectedOp !== null || s.area !== null);
  // Nothing to fit, draw or link to while the trace loads or when it could not be opened.
  const shown = useApp((s) => s.traceStatus === 'ready' || s.traceStatus === 'live');
  useApp((s) => s.dataVersion);
  const title = getTrace(traceId)?.meta.title ?? traceId ?? 'trace';
  return (
    <div className="toolbar row wrap">
      <strong className="trace-title" data-testid="trace-title" title={title}>
        {title}
      </strong>
      <button
        type="button"
        data-testid="fit"
        title="Show the GPU's activity, from the first GPU op to the last"
        disabled={!shown}
        onClick={() => appStore.getState().requestFit('gpu')}
      >
        Fit
      </button>
      <button
        type="button"
        data-testid="fit-all"
        title="Show the whole trace, host-only time included"
        disabled={!shown}
        onClick={() => appStore.getState().requestFit('all')}
      >
        Fit all
      </button>
      <button
        type="button"
        data-testid="zoom-selection"
        title="Zoom to the selection (F)"
        disabled={!hasSelection}
        onClick={zoomToSelection}
      >
        Zoom to selection
      </button>
      <SearchBox />
      <TracksMenu viewId={viewId} />
      <span className="spacer" />
      <button
        type="button"
        data-testid="export-png"
        disabled={!shown}
        onClick={() => void exportPng(viewId, title)}
      >
        PNG
      </button>
      <button
        type="button"
        data-testid="export-svg"
        disabled={!shown}
        onClick={() => exportSvg(viewId, title)}
      >
        SVG
      </button>
      <button
        type="button"
        data-testid="copy-link"
        title="Copy a link to this trace and view"
        disabled={!shown}
        onClick={() => {
          void navigator.clipboard?.writeText(location.href).then(
            () => appStore.getState().notify('info', 'Link copied.'),
            () => appStore.getState().notify('info', location.href),
          );
        }}
      >
        Link
      </button>
      <Legend />
    </div>
  );
}
