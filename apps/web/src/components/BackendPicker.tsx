import type { BackendInfo } from '../api/types.ts';

interface BackendPickerProps {
  readonly backends: readonly BackendInfo[];
  readonly backend: string;
  readonly target: string;
  readonly onChange: (backend: string, target: string) => void;
}

/** cuda where the server has a GPU, sim with a device profile everywhere. */
export function BackendPicker({ backends, backend, target, onChange }: BackendPickerProps) {
  const chosen = backends.find((b) => b.name === backend);
  return (
    <div className="row wrap">
      <label className="field">
        <span>Backend</span>
        <select
          data-testid="backend-select"
          value={backend}
          onChange={(e) => {
            const next = backends.find((b) => b.name === e.target.value);
            onChange(e.target.value, next?.targets[0] ?? '');
          }}
        >
          {backends.map((b) => (
            <option key={b.name} value={b.name} disabled={!b.available}>
              {b.name}
              {b.available ? '' : ` (unavailable${b.reason === '' ? '' : `: ${b.reason}`})`}
            </option>
          ))}
        </select>
      </label>
      {chosen !== undefined && chosen.targets.length > 0 && (
        <label className="field">
          <span>{chosen.name === 'sim' ? 'Device profile' : 'Device'}</span>
          <select
            data-testid="target-select"
            value={target}
            onChange={(e) => onChange(backend, e.target.value)}
          >
            {chosen.targets.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
