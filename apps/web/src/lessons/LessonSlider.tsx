import { formatBytes } from '@streamscope/trace';
import type { PresetParam } from '@streamscope/workload';
import type { ParamValue } from './lesson-types.ts';

interface LessonSliderProps {
  readonly param: PresetParam;
  readonly value: ParamValue | undefined;
  readonly onChange: (value: ParamValue) => void;
}

function shown(param: PresetParam, value: ParamValue | undefined): string {
  if (value === undefined) {
    return '';
  }
  return param.type === 'size' && typeof value === 'number' ? formatBytes(value) : String(value);
}

/**
 * One preset parameter as a control: a range for numbers (sizes move in powers of two), a
 * checkbox for flags, a select for choices.
 */
export function LessonSlider({ param, value, onChange }: LessonSliderProps) {
  const id = `lesson-param-${param.name}`;
  let input;
  if (param.type === 'bool') {
    input = (
      <input
        id={id}
        data-testid={id}
        type="checkbox"
        checked={value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  } else if (param.type === 'enum') {
    input = (
      <select
        id={id}
        data-testid={id}
        value={String(value)}
        onChange={(e) => onChange(e.target.value)}
      >
        {(param.options ?? []).map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  } else if (param.type === 'size') {
    // Sizes span orders of magnitude: the range moves the exponent.
    const min = Math.log2(Math.max(1, param.min ?? 1024));
    const max = Math.log2(Math.max(2, param.max ?? 2 ** 30));
    const current = typeof value === 'number' && value > 0 ? Math.log2(value) : min;
    input = (
      <input
        id={id}
        data-testid={id}
        type="range"
        min={Math.ceil(min)}
        max={Math.floor(max)}
        step={1}
        value={Math.round(current)}
        onChange={(e) => onChange(2 ** Number(e.target.value))}
      />
    );
  } else {
    const min = param.min ?? 0;
    const max =
      param.max ?? Math.max(min + 1, typeof param.default === 'number' ? param.default * 4 : 16);
    input = (
      <input
        id={id}
        data-testid={id}
        type="range"
        min={min}
        max={max}
        step={param.type === 'int' ? 1 : (max - min) / 100}
        value={typeof value === 'number' ? value : min}
        onChange={(e) => onChange(Number(e.target.value))}
      />
    );
  }
  return (
    <label className="lesson-field" htmlFor={id} title={param.description}>
      <span>
        {param.name} <output data-testid={`${id}-value`}>{shown(param, value)}</output>
      </span>
      {input}
      <small>{param.description}</small>
    </label>
  );
}
