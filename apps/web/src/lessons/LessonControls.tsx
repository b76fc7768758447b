import { deviceProfiles } from '@streamscope/simulator';
import { useStore } from 'zustand';
import { LessonSlider } from './LessonSlider.tsx';
import {
  setLessonBackend,
  setLessonParam,
  setLessonProfile,
  setPitfall,
} from './lesson-controller.ts';
import { lessonStore } from './lesson-store.ts';
import type { Lesson } from './lesson-types.ts';
import { lessonProfiles } from './lesson-types.ts';
import { presetOf } from './run-lesson-pair.ts';

interface LessonControlsProps {
  readonly lesson: Lesson;
  /** Whether the server reported a usable GPU (the cuda backend). */
  readonly gpuAvailable: boolean;
}

/** The pitfall toggle, the sliders that matter, the device profile and the backend. */
export function LessonControls({ lesson, gpuAvailable }: LessonControlsProps) {
  const params = useStore(lessonStore, (s) => s.params);
  const profile = useStore(lessonStore, (s) => s.profile);
  const backend = useStore(lessonStore, (s) => s.backend);
  const pitfallOn = params[lesson.pitfall.param] === lesson.pitfall.onValue;
  const preset = presetOf(lesson);
  const suggested = lessonProfiles(lesson);
  const profileNames = [
    ...suggested,
    ...Object.keys(deviceProfiles).filter((name) => !suggested.includes(name)),
  ];
  return (
    <div className="lesson-controls">
      <label className="lesson-field lesson-pitfall">
        <span>
          After run: <strong>{pitfallOn ? lesson.pitfall.onLabel : lesson.pitfall.offLabel}</strong>
        </span>
        <span className="lesson-toggle">
          <input
            type="checkbox"
            data-testid="lesson-pitfall-toggle"
            checked={pitfallOn}
            onChange={(e) => void setPitfall(e.target.checked)}
          />
          keep the pitfall ({lesson.pitfall.onLabel})
        </span>
        {pitfallOn && (
          <small className="muted" data-testid="lesson-pitfall-hint">
            Both runs now keep the pitfall, so they match (1.00×). Untick to run the after run with
            the fix ({lesson.pitfall.offLabel}) and compare the two timelines row by row.
          </small>
        )}
      </label>
      {lesson.sliders.map((name) => {
        const param = preset.params.find((p) => p.name === name);
        return param === undefined ? null : (
          <LessonSlider
            key={name}
            param={param}
            value={params[name]}
            onChange={(value) => void setLessonParam(name, value)}
          />
        );
      })}
      <label className="lesson-field">
        <span>Device profile</span>
        <select
          data-testid="lesson-profile"
          value={profile}
          onChange={(e) => void setLessonProfile(e.target.value)}
        >
          {profileNames.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label className="lesson-field">
        <span>Backend</span>
        <select
          data-testid="lesson-backend"
          value={backend}
          onChange={(e) => void setLessonBackend(e.target.value === 'cuda' ? 'cuda' : 'sim')}
        >
          <option value="sim">simulator</option>
          <option value="cuda" disabled={!gpuAvailable}>
            GPU{gpuAvailable ? '' : ' (the server has none)'}
          </option>
        </select>
      </label>
    </div>
  );
}
