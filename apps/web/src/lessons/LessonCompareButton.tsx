import { useState } from 'react';
import { useStore } from 'zustand';
import { appStore } from '../store/index.ts';
import { runOnServer } from './lesson-gpu.ts';
import { lessonStore } from './lesson-store.ts';

/**
 * Runs the two workloads on the server (the lesson's backend and profile) and opens them in the
 * app's Compare view, where they can be zoomed, searched and exported like any stored trace.
 */
export function LessonCompareButton() {
  const summary = useStore(lessonStore, (s) => s.summary);
  const backend = useStore(lessonStore, (s) => s.backend);
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({
    busy: false,
    error: null,
  });
  if (summary === null) {
    return null;
  }
  const open = async (): Promise<void> => {
    setState({ busy: true, error: null });
    try {
      // On sim the profile is the target; on cuda the server picks its first device.
      const target = backend === 'sim' ? summary.profile : '';
      const traceA = await runOnServer(summary.before.workload, backend, target);
      const traceB = await runOnServer(summary.after.workload, backend, target);
      appStore.getState().navigate({ page: 'compare', traceA, traceB });
    } catch (error) {
      setState({ busy: false, error: error instanceof Error ? error.message : String(error) });
    }
  };
  return (
    <span className="lesson-compare">
      <button
        type="button"
        data-testid="lesson-open-compare"
        disabled={state.busy}
        onClick={() => void open()}
      >
        {state.busy ? 'Running both on the server…' : 'Open both in Compare'}
      </button>
      {state.error !== null && (
        <span className="lesson-error" role="alert">
          {state.error}
        </span>
      )}
    </span>
  );
}
