import { useEffect, useState } from 'react';
import { validateWorkload } from '../api/client.ts';
import type { PlacedError } from '../lib/workload-errors.ts';
import { parseEditorJson, placeErrors } from '../lib/workload-errors.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';
import { WorkloadEditor } from './WorkloadEditor.tsx';

interface WorkloadPanelProps {
  /** The parsed workload and whether the server's validation accepted it. */
  readonly onWorkload: (value: unknown, valid: boolean) => void;
}

const validateDelayMs = 300;

/**
 * The JSON editor plus validation: syntax locally, the schema on the server, both placed. The
 * text sits in the store, where a preset or a lesson can load a workload to start from.
 */
export function WorkloadPanel({ onWorkload }: WorkloadPanelProps) {
  const text = useApp((s) => s.workloadText);
  const origin = useApp((s) => s.workloadOrigin);
  const [errors, setErrors] = useState<readonly PlacedError[]>([]);
  const [checking, setChecking] = useState(false);

  useEffect(() => {
    if (text.trim() === '') {
      setErrors([]);
      onWorkload(null, false);
      return;
    }
    const parsed = parseEditorJson(text);
    if (!parsed.ok) {
      setErrors([parsed.error]);
      onWorkload(null, false);
      return;
    }
    let current = true;
    setChecking(true);
    const timer = setTimeout(() => {
      validateWorkload(parsed.value).then(
        (found) => {
          if (current) {
            setErrors(placeErrors(text, found));
            onWorkload(parsed.value, found.length === 0);
            setChecking(false);
          }
        },
        (e: unknown) => {
          if (current) {
            setErrors([
              {
                path: '',
                message: `validation failed: ${String(e)}`,
                place: { offset: 0, line: 1, column: 1 },
              },
            ]);
            onWorkload(null, false);
            setChecking(false);
          }
        },
      );
    }, validateDelayMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, onWorkload]);

  return (
    <div className="stack">
      {origin !== null && (
        <span className="muted small" data-testid="workload-origin">
          Started from {origin}: edit it freely, then run it.
        </span>
      )}
      <WorkloadEditor
        text={text}
        errors={errors}
        onChange={(next) => appStore.getState().setWorkloadText(next)}
      />
      <span className="muted small" data-testid="workload-validity">
        {text.trim() === ''
          ? 'Paste or write a workload.'
          : checking
            ? 'checking…'
            : errors.length === 0
              ? 'valid'
              : `${errors.length} problem(s)`}
      </span>
    </div>
  );
}
