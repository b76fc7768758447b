import { useRef, useState } from 'react';
import type { ApiError } from '../api/client.ts';
import type { TraceEntry } from '../api/types.ts';
import type { UploadHandle } from '../api/upload.ts';
import { uploadTrace } from '../api/upload.ts';
import { DropZone } from '../components/DropZone.tsx';
import { TraceTable } from '../components/TraceTable.tsx';
import { refreshTraceList } from '../data/trace-loader.ts';
import { useTraceList } from '../data/use-trace-list.ts';
import { formatCount } from '../lib/format.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

type UploadState =
  | { readonly phase: 'idle' }
  | { readonly phase: 'uploading'; readonly fileName: string; readonly fraction: number }
  | { readonly phase: 'done'; readonly entry: TraceEntry }
  | {
      readonly phase: 'failed';
      readonly fileName: string;
      readonly message: string;
      readonly where?: string;
    };

function isApiError(e: unknown): e is ApiError {
  return e instanceof Error && e.name === 'ApiError';
}

export function ImportPage() {
  useTraceList();
  const imports = useApp((s) => s.traceList).filter((e) => e.source === 'import');
  const [state, setState] = useState<UploadState>({ phase: 'idle' });
  const handle = useRef<UploadHandle | null>(null);

  const start = (file: File): void => {
    setState({ phase: 'uploading', fileName: file.name, fraction: 0 });
    const upload = uploadTrace(file, file.name, (fraction) =>
      setState((s) => (s.phase === 'uploading' ? { ...s, fraction } : s)),
    );
    handle.current = upload;
    upload.done.then(
      (entry) => {
        setState({ phase: 'done', entry });
        void refreshTraceList();
      },
      (e: unknown) => {
        const message = e instanceof Error ? e.message : String(e);
        const where = isApiError(e) ? e.path : undefined;
        setState({
          phase: 'failed',
          fileName: file.name,
          message,
          ...(where === undefined ? {} : { where }),
        });
      },
    );
  };

  return (
    <section className="stack">
      <h1>Import a trace</h1>
      <DropZone disabled={state.phase === 'uploading'} onFile={start} />
      {state.phase === 'uploading' && (
        <div className="row" data-testid="import-progress">
          <span>{state.fileName}</span>
          <progress max={1} value={state.fraction} />
          <span>{Math.round(state.fraction * 100)}%</span>
          {state.fraction >= 1 && <span className="muted">reading on the server…</span>}
          <button type="button" className="quiet" onClick={() => handle.current?.abort()}>
            Cancel
          </button>
        </div>
      )}
      {state.phase === 'failed' && (
        <div className="error-box" role="alert" data-testid="import-error">
          <strong>{state.fileName} could not be imported.</strong>
          <p>{state.message}</p>
          {state.where !== undefined && <p className="muted">At: {state.where}</p>}
        </div>
      )}
      {state.phase === 'done' && (
        <div className="ok-box" data-testid="import-done">
          Imported <strong>{state.entry.title}</strong>: {formatCount(state.entry.opCount)} ops.{' '}
          <button
            type="button"
            className="link"
            data-testid="open-imported"
            onClick={() => appStore.getState().navigate({ page: 'trace', traceId: state.entry.id })}
          >
            Open
          </button>
        </div>
      )}
      <h2>Imported traces</h2>
      <TraceTable entries={imports} />
    </section>
  );
}
