import { useCallback, useEffect, useState } from 'react';
import { listBackends, listPresets, startRun } from '../api/client.ts';
import type { RunRequest } from '../api/client.ts';
import type { BackendInfo, Preset } from '../api/types.ts';
import { BackendPicker } from '../components/BackendPicker.tsx';
import { PacePicker, paceRequest } from '../components/PacePicker.tsx';
import { PresetPicker } from '../components/PresetPicker.tsx';
import { QueueList } from '../components/QueueList.tsx';
import { RunStatus } from '../components/RunStatus.tsx';
import { TimelineCanvas } from '../components/TimelineCanvas.tsx';
import { WorkloadPanel } from '../components/WorkloadPanel.tsx';
import { followRun, refreshTraceList, stopFollowing } from '../data/trace-loader.ts';
import { useTraceList } from '../data/use-trace-list.ts';
import { presetProblems } from '../lib/param-limits.ts';
import { presetWorkload } from '../lib/preset-workload.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';

function defaultsOf(preset: Preset | undefined): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const p of preset?.params ?? []) {
    params[p.name] = p.default;
  }
  return params;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function RunPage() {
  useTraceList();
  const [presets, setPresets] = useState<readonly Preset[]>([]);
  const [backends, setBackends] = useState<readonly BackendInfo[]>([]);
  const mode = useApp((s) => s.runMode);
  const suggestedTarget = useApp((s) => s.suggestedTarget);
  const [presetName, setPresetName] = useState('');
  const [params, setParams] = useState<Record<string, unknown>>({});
  const [workload, setWorkload] = useState<{ value: unknown; valid: boolean }>({
    value: null,
    valid: false,
  });
  const [backend, setBackend] = useState({ name: '', target: '' });
  const [starting, setStarting] = useState(false);
  const [paceId, setPaceId] = useState('realtime');
  const run = useApp((s) => s.activeRun);
  const onWorkload = useCallback(
    (value: unknown, valid: boolean) => setWorkload({ value, valid }),
    [],
  );

  useEffect(() => {
    let live = true;
    listPresets().then(
      (list) => {
        if (!live) {
          return;
        }
        setPresets(list);
        const first = list[0];
        if (first !== undefined) {
          setPresetName(first.name);
          setParams(defaultsOf(first));
        }
      },
      (e: unknown) => appStore.getState().notify('error', `presets: ${messageOf(e)}`),
    );
    listBackends().then(
      (list) => {
        if (!live) {
          return;
        }
        setBackends(list);
        // Prefer a real GPU when the server has one; the simulator otherwise.
        const pick =
          list.find((b) => b.name === 'cuda' && b.available) ?? list.find((b) => b.available);
        if (pick !== undefined) {
          setBackend({ name: pick.name, target: pick.targets[0] ?? '' });
        }
      },
      (e: unknown) => appStore.getState().notify('error', `backends: ${messageOf(e)}`),
    );
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => () => stopFollowing(), []);

  // A workload opened from a lesson names the device profile it was made for: pick it once the
  // server has listed its backends (and only if it offers that target).
  useEffect(() => {
    if (suggestedTarget === null) {
      return;
    }
    const offered = backends.find((b) => b.name === suggestedTarget.backend && b.available);
    if (offered === undefined) {
      return;
    }
    if (suggestedTarget.target === '') {
      setBackend({ name: offered.name, target: offered.targets[0] ?? '' });
    } else if (offered.targets.includes(suggestedTarget.target)) {
      setBackend({ name: offered.name, target: suggestedTarget.target });
    }
    appStore.getState().clearSuggestedTarget();
  }, [backends, suggestedTarget]);

  const loadPreset = (): void => {
    try {
      const built = presetWorkload(presetName, params);
      appStore.getState().loadWorkloadIntoEditor(built.workload, built.origin);
    } catch (e) {
      appStore.getState().notify('error', `preset not loaded: ${messageOf(e)}`);
    }
  };
  const presetPicker = (
    <PresetPicker
      presets={presets}
      presetName={presetName}
      params={params}
      onPreset={(name) => {
        setPresetName(name);
        setParams(defaultsOf(presets.find((p) => p.name === name)));
      }}
      onParam={(name, value) => setParams((p) => ({ ...p, [name]: value }))}
    />
  );

  const launch = async (): Promise<void> => {
    const target = backend.target === '' ? {} : { target: backend.target };
    const backendPart = {
      ...(backend.name === '' ? {} : { backend: backend.name, ...target }),
      ...paceRequest(paceId),
    };
    const request: RunRequest =
      mode === 'preset'
        ? { preset: presetName, params, ...backendPart }
        : { workload: workload.value, ...backendPart };
    setStarting(true);
    try {
      const ticket = await startRun(request);
      const status = ticket.status === 'running' ? 'running' : 'queued';
      appStore.getState().startRun(ticket.id, status, ticket.position);
      followRun(ticket.id);
      void refreshTraceList();
    } catch (e) {
      appStore.getState().notify('error', `run not started: ${messageOf(e)}`);
    } finally {
      setStarting(false);
    }
  };

  const problemCount = Object.keys(
    presetProblems(
      presets.find((p) => p.name === presetName),
      params,
    ),
  ).length;
  const canRun =
    !starting && (mode === 'preset' ? presetName !== '' && problemCount === 0 : workload.valid);
  return (
    <div className="run-layout">
      <aside className="run-setup stack">
        <h1>Run a workload</h1>
        <div className="tabs" role="tablist">
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'preset'}
            data-testid="mode-preset"
            onClick={() => appStore.getState().setRunMode('preset')}
          >
            Preset
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'workload'}
            data-testid="mode-workload"
            onClick={() => appStore.getState().setRunMode('workload')}
          >
            Workload JSON
          </button>
        </div>
        {mode === 'preset' ? (
          <>
            {presetPicker}
            <button
              type="button"
              data-testid="preset-to-editor"
              disabled={presetName === ''}
              onClick={loadPreset}
            >
              Edit as JSON
            </button>
          </>
        ) : (
          <>
            <details className="preset-loader" data-testid="preset-loader">
              <summary>Load a preset into the editor</summary>
              <div className="stack">
                {presetPicker}
                <button
                  type="button"
                  data-testid="load-preset"
                  disabled={presetName === ''}
                  onClick={loadPreset}
                >
                  Load (replaces the editor&apos;s text)
                </button>
              </div>
            </details>
            <WorkloadPanel onWorkload={onWorkload} />
          </>
        )}
        <BackendPicker
          backends={backends}
          backend={backend.name}
          target={backend.target}
          onChange={(name, target) => setBackend({ name, target })}
        />
        <PacePicker paceId={paceId} onChange={setPaceId} />
        <button
          type="button"
          className="primary"
          data-testid="run-button"
          disabled={!canRun}
          onClick={() => void launch()}
        >
          {starting ? 'Starting…' : 'Run'}
        </button>
        {mode === 'preset' && problemCount > 0 && (
          <p className="field-error" data-testid="run-blocked">
            Fix {problemCount === 1 ? 'the parameter' : `the ${problemCount} parameters`} marked
            above to run.
          </p>
        )}
        <QueueList />
      </aside>
      <section className="run-live stack">
        <RunStatus />
        {run === null ? (
          <p className="muted">
            Pick a preset and press Run: its streams fill in here as the GPU (or the simulator)
            reports them.
          </p>
        ) : (
          <div className="timeline-host">
            <TimelineCanvas key={run.runId} traceId={run.runId} viewId="live-timeline" follow />
          </div>
        )}
      </section>
    </div>
  );
}
