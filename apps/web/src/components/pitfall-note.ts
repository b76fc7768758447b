import { lessons } from '../lessons/lesson-catalogue.ts';
import type { ParamValue } from '../lessons/lesson-types.ts';

function settingText(value: ParamValue, isBoolean: boolean): string {
  if (isBoolean) {
    return value === true ? 'ticked' : 'unticked';
  }
  return String(value);
}

/**
 * How the Run page names the bad setting of a preset's pitfall parameter, worded as the Lessons
 * page does: "unticked is the pitfall (all-reduce after the whole backward)". The pitfall is the
 * value a lesson's "before" run uses; a preset without a lesson on that parameter says only that
 * this parameter switches it. Where lessons of one preset disagree (issue order is a pitfall in
 * opposite directions on one and on two copy engines) each is named with its lesson.
 */
export function pitfallNote(presetName: string, paramName: string, isBoolean: boolean): string {
  const matching = lessons.filter((l) => l.preset === presetName && l.pitfall.param === paramName);
  const distinct = matching.filter(
    (l, i) => matching.findIndex((m) => m.pitfall.onValue === l.pitfall.onValue) === i,
  );
  const first = distinct[0];
  if (first === undefined) {
    return 'switches the pitfall on and off';
  }
  if (distinct.length === 1) {
    return `${settingText(first.pitfall.onValue, isBoolean)} is the pitfall (${first.pitfall.onLabel})`;
  }
  return distinct
    .map((l) => `${settingText(l.pitfall.onValue, isBoolean)} is the pitfall in “${l.title}”`)
    .join('; ');
}
