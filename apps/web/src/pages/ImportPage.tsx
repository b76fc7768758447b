import { useRef, useState } from 'react';
import type { ApiError } from '../api/client.ts';
import type { ImportProgress } from '../api/import-progress.ts';
import type { RanksProgress } from '../api/import-ranks.ts';
import { importRanks } from '../api/import-ranks.ts';
import { parsingProgress, uploadingProgress } from '../api/import-progress.ts';
import type { TraceEntry } from '../api/types.ts';
import { uploadTrace } from '../api/upload.ts';
import { DropZone } from '../components/DropZone.tsx';
import { ImportProgressBar } from '../components/ImportProgressBar.tsx';
import { ImportWarnings } from '../components/ImportWarnings.tsx';
import { TraceTable } from '../components/TraceTable.tsx';
import { refreshTraceList } from '../data/trace-loader.ts';
import { useTraceList } from '../data/use-trace-list.ts';
import { formatCount, formatCreatedAt } from '../lib/format.ts';
import { openLocally } from '../local-import/open-locally.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

type UploadState =
  | { readonly phase: 'idle' }
  | {
      readonly phase: 'importing';
      readonly fileName: string;
      readonly progress: ImportProgress;
      readonly where: 'server' | 'browser';
    }
  | {
      readonly phase: 'importing-ranks';
      readonly fileName: string;
      readonly progress: RanksProgress;
    }
  | {
      readonly phase: 'done';
      readonly entry: TraceEntry;
      /** The server had these bytes already: `entry` is the earlier import, and `file` is kept for "import again". */
      readonly duplicateOf?: { readonly file: File };
      /** The server had merged these files before: `entry` is that merge, and nothing was stored. */
      readonly mergedBefore?: { readonly fileNames: readonly string[] };
    }
  | { readonly phase: 'cancelled'; readonly fileName: string }
  | {
      readonly phase: 'failed';
      readonly fileName: string;
      readonly message: string;
      readonly where?: string;
    };

/** 'a and b', 'a, b and c': the files of one drop, as a sentence names them. */
function listNames(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function isApiError(e: unknown): e is ApiError {
  return e instanceof Error && e.name === 'ApiError';
}

export function ImportPage() {
  useTraceList();
  const imports = useApp((s) => s.traceList).filter((e) => e.source === 'import');
  const [state, setState] = useState<UploadState>({ phase: 'idle' });
  const [local, setLocal] = useState(false);
  const cancel = useRef<(() => void) | null>(null);
  const onProgress = (progress: ImportProgress): void =>
    setState((s) => (s.phase === 'importing' ? { ...s, progress } : s));

  const startLocal = (file: File): void => {
    setState({
      phase: 'importing',
      fileName: file.name,
      progress: parsingProgress(0, file.size, false),
      where: 'browser',
    });
    const job = openLocally(file, onProgress);
    cancel.current = job.cancel;
    void job.done.then((outcome) => {
      if (outcome.kind === 'opened') {
        setState({ phase: 'idle' });
        appStore.getState().navigate({ page: 'trace', traceId: outcome.traceId });
      } else if (outcome.kind === 'cancelled') {
        setState({ phase: 'cancelled', fileName: file.name });
      } else {
        setState({
          phase: 'failed',
          fileName: file.name,
          message: outcome.message,
          ...(outcome.place === undefined ? {} : { where: outcome.place }),
        });
      }
    });
  };

  const startRanks = (files: File[]): void => {
    const fileName = files.map((f) => f.name).join(', ');
    setState({
      phase: 'importing-ranks',
      fileName,
      progress: { files: [], merging: false },
    });
    const job = importRanks(files, (progress) =>
      setState((s) => (s.phase === 'importing-ranks' ? { ...s, progress } : s)),
    );
    cancel.current = job.abort;
    job.done.then(
      (entry) => {
        setState(
          entry.alreadyImported
            ? { phase: 'done', entry, mergedBefore: { fileNames: files.map((f) => f.name) } }
            : { phase: 'done', entry },
        );
        void refreshTraceList();
      },
      (e: unknown) => failed(fileName, e),
    );
  };

  const failed = (fileName: string, e: unknown): void => {
    if (isApiError(e) && (e.code === 'import-cancelled' || e.code === 'aborted')) {
      setState({ phase: 'cancelled', fileName });
      return;
    }
    const message = e instanceof Error ? e.message : String(e);
    const where = isApiError(e) ? e.path : undefined;
    setState({
      phase: 'failed',
      fileName,
      message,
      ...(where === undefined ? {} : { where }),
    });
  };

  const startFiles = (files: File[]): void => {
    if (files.length === 1) {
      start(files[0]!);
    } else if (local) {
      setState({
        phase: 'failed',
        fileName: files.map((f) => f.name).join(', '),
        message:
          'Open locally reads one file at a time: untick it to open several ranks of one job as one trace on the server.',
      });
    } else {
      startRanks(files);
    }
  };

  /** `ifDuplicate` 'offer': bytes imported before are offered as that trace, not stored again. */
  const start = (file: File, ifDuplicate: 'import' | 'offer' = 'offer'): void => {
    if (local) {
      startLocal(file);
      return;
    }
    setState({
      phase: 'importing',
      fileName: file.name,
      progress: uploadingProgress(0, file.size),
      where: 'server',
    });
    const upload = uploadTrace(file, file.name, onProgress, ifDuplicate);
    cancel.current = upload.abort;
    upload.done.then(
      (entry) => {
        setState(
          entry.alreadyImported
            ? { phase: 'done', entry, duplicateOf: { file } }
            : { phase: 'done', entry },
        );
        void refreshTraceList();
      },
      (e: unknown) => failed(file.name, e),
    );
  };

  return (
    <section className="stack">
      <h1>Import a trace</h1>
      <label className="row">
        <input
          type="checkbox"
          data-testid="import-local-toggle"
          checked={local}
          disabled={state.phase === 'importing' || state.phase === 'importing-ranks'}
          onChange={(e) => setLocal(e.target.checked)}
        />
        <span>
          Open locally (nothing leaves this browser): read the file in a worker here and open it,
          without storing or listing it on the server
        </span>
      </label>
      <DropZone
        disabled={state.phase === 'importing' || state.phase === 'importing-ranks'}
        onFiles={startFiles}
      />
      {state.phase === 'importing' && (
        <ImportProgressBar
          fileName={state.fileName}
          progress={state.progress}
          where={state.where}
          onCancel={() => cancel.current?.()}
        />
      )}
      {state.phase === 'importing-ranks' && (
        <div className="stack" data-testid="import-ranks-progress">
          {state.progress.files.map((f) => (
            <ImportProgressBar
              key={f.fileName}
              fileName={f.fileName}
              progress={f.progress}
              where="server"
              onCancel={() => cancel.current?.()}
            />
          ))}
          {state.progress.merging && (
            <p className="muted" data-testid="import-merging">
              Merging {state.progress.files.length} ranks into one trace…
            </p>
          )}
        </div>
      )}
      {state.phase === 'cancelled' && (
        <p className="muted" data-testid="import-cancelled">
          The import of {state.fileName} was cancelled; nothing of it was kept.
        </p>
      )}
      {state.phase === 'failed' && (
        <div className="error-box" role="alert" data-testid="import-error">
          <strong>{state.fileName} could not be imported.</strong>
          <p>{state.message}</p>
          {state.where !== undefined && <p className="muted">At: {state.where}</p>}
        </div>
      )}
      {state.phase === 'done' && state.duplicateOf !== undefined && (
        <div className="ok-box" data-testid="import-done" data-already-imported="true">
          <span data-testid="import-duplicate">
            {state.duplicateOf.file.name} was already imported as{' '}
            <strong>{state.entry.title}</strong> ({formatCount(state.entry.opCount)} ops,{' '}
            {formatCreatedAt(state.entry.createdAt)}): nothing new was stored.
          </span>{' '}
          <button
            type="button"
            className="link"
            data-testid="open-imported"
            onClick={() => appStore.getState().navigate({ page: 'trace', traceId: state.entry.id })}
          >
            Open it
          </button>{' '}
          or{' '}
          <button
            type="button"
            className="link"
            data-testid="import-again"
            onClick={() => start(state.duplicateOf!.file, 'import')}
          >
            import it again
          </button>
        </div>
      )}
      {state.phase === 'done' && state.mergedBefore !== undefined && (
        <div className="ok-box" data-testid="import-done" data-already-imported="true">
          <span data-testid="import-duplicate">
            {listNames(state.mergedBefore.fileNames)} were already merged as{' '}
            <strong>{state.entry.title}</strong> ({formatCount(state.entry.opCount)} ops,{' '}
            {formatCreatedAt(state.entry.createdAt)}): nothing new was stored.
          </span>{' '}
          <button
            type="button"
            className="link"
            data-testid="open-imported"
            onClick={() => appStore.getState().navigate({ page: 'trace', traceId: state.entry.id })}
          >
            Open it
          </button>
        </div>
      )}
      {state.phase === 'done' &&
        state.duplicateOf === undefined &&
        state.mergedBefore === undefined && (
          <div className="ok-box" data-testid="import-done">
            Imported <strong>{state.entry.title}</strong>: {formatCount(state.entry.opCount)} ops.{' '}
            <button
              type="button"
              className="link"
              data-testid="open-imported"
              onClick={() =>
                appStore.getState().navigate({ page: 'trace', traceId: state.entry.id })
              }
            >
              Open
            </button>
            <ImportWarnings warnings={state.entry.warnings} testId="import-warnings" />
          </div>
        )}
      <h2>Imported traces</h2>
      <TraceTable
        entries={imports}
        empty={
          <p>
            No imports yet: drop a file above. Runs are listed under{' '}
            <button
              type="button"
              className="link"
              onClick={() => appStore.getState().navigate({ page: 'traces' })}
            >
              Traces
            </button>
            .
          </p>
        }
      />
    </section>
  );
}
