import type { Preset, PresetParam } from '../api/types.ts';
import { paramRange, presetProblems } from '../lib/param-limits.ts';
import { shownPresetDescription } from '../lib/preset-description.ts';
import { pitfallNote } from './pitfall-note.ts';

interface PresetPickerProps {
  readonly presets: readonly Preset[];
  readonly presetName: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly onPreset: (name: string) => void;
  readonly onParam: (name: string, value: unknown) => void;
}

function ParamInput({
  param,
  value,
  onChange,
}: {
  param: PresetParam;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  const id = `param-${param.name}`;
  if (param.type === 'boolean' || param.type === 'bool') {
    return (
      <input
        id={id}
        type="checkbox"
        data-testid={id}
        checked={value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  }
  if (param.options.length > 0) {
    return (
      <select
        id={id}
        data-testid={id}
        value={String(value)}
        onChange={(e) => onChange(e.target.value)}
      >
        {param.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  }
  if (param.type === 'number' || param.type === 'integer' || param.type === 'int') {
    return (
      <input
        id={id}
        type="number"
        data-testid={id}
        value={typeof value === 'number' ? value : ''}
        min={param.min}
        max={param.max}
        step={param.type === 'number' ? 'any' : 1}
        onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
      />
    );
  }
  return (
    <input
      id={id}
      data-testid={id}
      value={typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value)}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** What the preset does, with the figures of the values below (defaults' while one is invalid). */
function PresetDescription({
  preset,
  params,
}: {
  preset: Preset;
  params: Readonly<Record<string, unknown>>;
}) {
  const shown = shownPresetDescription(preset, params);
  return (
    <p className="muted" data-testid="preset-description">
      {shown.text}
      {shown.atDefaults && (
        <em data-testid="preset-description-defaults">
          {' '}
          (Figures for the default values, until every value below is valid.)
        </em>
      )}
    </p>
  );
}

/** Pick a lesson preset and set its parameters; the pitfall switch is shown first. */
export function PresetPicker({
  presets,
  presetName,
  params,
  onPreset,
  onParam,
}: PresetPickerProps) {
  const preset = presets.find((p) => p.name === presetName);
  // Every limit is checked as the values change, all at once, before Run is pressed.
  const problems = presetProblems(preset, params);
  const ordered =
    preset === undefined
      ? []
      : [...preset.params].sort(
          (a, b) => Number(b.name === preset.pitfallParam) - Number(a.name === preset.pitfallParam),
        );
  return (
    <div className="stack">
      <label className="field">
        <span>Preset</span>
        <select
          data-testid="preset-select"
          value={presetName}
          onChange={(e) => onPreset(e.target.value)}
        >
          {presets.map((p) => (
            <option key={p.name} value={p.name}>
              {p.title}
            </option>
          ))}
        </select>
      </label>
      {preset !== undefined && <PresetDescription preset={preset} params={params} />}
      {ordered.map((param) => (
        <label
          key={param.name}
          className={param.name === preset?.pitfallParam ? 'field pitfall' : 'field'}
          title={param.description}
        >
          <span>
            {param.name}
            {param.name === preset?.pitfallParam && (
              <em data-testid="pitfall-note">
                {' — '}
                {pitfallNote(
                  preset.name,
                  param.name,
                  param.type === 'boolean' || param.type === 'bool',
                )}
              </em>
            )}
          </span>
          <ParamInput
            param={param}
            value={params[param.name]}
            onChange={(v) => onParam(param.name, v)}
          />
          {problems[param.name] !== undefined && (
            <small className="field-error" role="alert" data-testid={`param-error-${param.name}`}>
              {param.name}: {problems[param.name]}
            </small>
          )}
          {param.description !== '' && (
            <small className="muted">
              {param.description}
              {paramRange(param) !== undefined && ` (${paramRange(param)})`}
            </small>
          )}
        </label>
      ))}
    </div>
  );
}
