import { useState } from 'react';
import { deleteTrace } from '../api/client.ts';
import { TraceTable } from '../components/TraceTable.tsx';
import { refreshTraceList } from '../data/trace-loader.ts';
import { forgetTrace } from '../data/trace-registry.ts';
import { useTraceList } from '../data/use-trace-list.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

export function TracesPage() {
  useTraceList();
  const entries = useApp((s) => s.traceList);
  const error = useApp((s) => s.traceListError);
  const [picked, setPicked] = useState<readonly string[]>([]);
  const pick = (id: string): void =>
    setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));
  const remove = async (id: string): Promise<void> => {
    try {
      await deleteTrace(id);
      forgetTrace(id);
      setPicked((p) => p.filter((x) => x !== id));
    } catch (e) {
      appStore.getState().notify('error', e instanceof Error ? e.message : String(e));
    }
    await refreshTraceList();
  };
  const [a, b] = picked;
  return (
    <section className="stack">
      <div className="row spread">
        <h1>Traces</h1>
        <button
          type="button"
          data-testid="compare-button"
          disabled={a === undefined || b === undefined}
          onClick={() => {
            if (a !== undefined && b !== undefined) {
              appStore.getState().navigate({ page: 'compare', traceA: a, traceB: b });
            }
          }}
        >
          Compare {picked.length}/2
        </button>
      </div>
      {error !== null && (
        <p className="error" data-testid="trace-list-error">
          Could not list traces: {error}
        </p>
      )}
      <TraceTable
        entries={entries}
        picked={picked}
        onPick={pick}
        onDelete={(id) => void remove(id)}
        empty={<FirstSteps />}
      />
    </section>
  );
}

/** The empty list's three ways in, each one click from a first trace. */
export function FirstSteps() {
  const go = (page: 'run' | 'import' | 'lessons'): void => appStore.getState().navigate({ page });
  return (
    <div className="first-steps">
      <p>No traces yet. Every run and import is listed here, ready to reopen or compare.</p>
      <ul>
        <li>
          <button type="button" className="link" data-testid="first-run" onClick={() => go('run')}>
            Run a workload
          </button>{' '}
          — pick a preset and watch its streams fill in live, on the simulator or the GPU.
        </li>
        <li>
          <button type="button" className="link" onClick={() => go('import')}>
            Import a trace
          </button>{' '}
          — an Nsight Systems export (.json or .sqlite from <code>nsys export</code>) or report
          (.nsys-rep, where the server has nsys), a PyTorch profiler trace, or any Chrome trace
          (JAX, TensorFlow, ROCm).
        </li>
        <li>
          <button type="button" className="link" onClick={() => go('lessons')}>
            Open the overlap lessons
          </button>{' '}
          — flip one pitfall at a time and see why copies and kernels overlap, or do not.
        </li>
      </ul>
    </div>
  );
}
