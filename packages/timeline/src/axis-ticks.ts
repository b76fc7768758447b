/** One tick of the time axis. */
export interface AxisTick {
  /** ns since the trace origin. */
  readonly timeNs: number;
  readonly label: string;
  /** A major tick (every fifth or tenth step) draws a stronger grid line. */
  readonly major: boolean;
}

export interface AxisTicks {
  readonly stepNs: number;
  readonly unit: TimeUnit;
  /** ns the labels are relative to (0 unless the view is far from the origin). */
  readonly labelBaseNs: number;
  /** Label of `labelBaseNs`, shown once at the axis start; '' when the base is 0. */
  readonly baseLabel: string;
  readonly ticks: readonly AxisTick[];
}

export type TimeUnit = 'ns' | 'µs' | 'ms' | 's';

const unitNs: Record<TimeUnit, number> = { ns: 1, µs: 1e3, ms: 1e6, s: 1e9 };

/** The largest unit no bigger than `stepNs`, so labels read "250 µs" rather than "0.25 ms". */
export function unitForStep(stepNs: number): TimeUnit {
  if (stepNs >= 1e9) {
    return 's';
  }
  if (stepNs >= 1e6) {
    return 'ms';
  }
  if (stepNs >= 1e3) {
    return 'µs';
  }
  return 'ns';
}

/** The smallest 1·2·5·10^k ns step (at least 1 ns) whose spacing is at least `minSpacingPx`. */
export function niceStepNs(spanNs: number, widthPx: number, minSpacingPx: number): number {
  const minStepNs = (spanNs / Math.max(1, widthPx)) * minSpacingPx;
  if (!(minStepNs > 1)) {
    return 1;
  }
  let decade = 10 ** Math.floor(Math.log10(minStepNs));
  for (;;) {
    for (const m of [1, 2, 5]) {
      if (m * decade >= minStepNs) {
        return m * decade;
      }
    }
    decade *= 10;
  }
}

/** Formats `valueNs` in `unit` with just enough decimals to tell steps of `stepNs` apart. */
export function formatTick(valueNs: number, unit: TimeUnit, stepNs: number): string {
  const scale = unitNs[unit];
  const decimals = Math.max(0, Math.ceil(-Math.log10(stepNs / scale) - 1e-9));
  return `${(valueNs / scale).toFixed(Math.min(decimals, 9))} ${unit}`;
}

/**
 * Ticks for the window [startNs, endNs] drawn `widthPx` wide, at least `minSpacingPx` apart.
 * Far from the origin (where a label would need more than ~6 significant digits) the labels are
 * relative to a round base shown once, as in "+ 1.2 s", so they stay short at deep zoom.
 */
export function axisTicks(
  startNs: number,
  endNs: number,
  widthPx: number,
  minSpacingPx = 90,
): AxisTicks {
  const spanNs = Math.max(1, endNs - startNs);
  const stepNs = niceStepNs(spanNs, widthPx, minSpacingPx);
  const unit = unitForStep(stepNs);
  // A label longer than 6 digits in units of the step gets a base: the window start rounded
  // down to 1000 steps, so labels count at most ~1000 + span/step steps.
  const baseStepNs = stepNs * 1000;
  const labelBaseNs =
    Math.abs(startNs) / stepNs >= 1e5 ? Math.floor(startNs / baseStepNs) * baseStepNs : 0;
  // The base reads in the unit of its own size, precise to the base's rounding step.
  const baseUnit = unitForStep(Math.abs(labelBaseNs));
  const baseLabel = labelBaseNs === 0 ? '' : formatTick(labelBaseNs, baseUnit, baseStepNs);
  const ticks: AxisTick[] = [];
  const first = Math.ceil(startNs / stepNs);
  const last = Math.floor(endNs / stepNs);
  for (let k = first; k <= last; k++) {
    const timeNs = k * stepNs;
    const rel = timeNs - labelBaseNs;
    ticks.push({
      timeNs,
      label:
        labelBaseNs === 0 ? formatTick(rel, unit, stepNs) : `+${formatTick(rel, unit, stepNs)}`,
      major: k % 10 === 0,
    });
  }
  return { stepNs, unit, labelBaseNs, baseLabel, ticks };
}

/** Gap between a tick and its label, and the least room kept between two labels, CSS px. */
export const axisLabelOffsetPx = 3;
const axisLabelGapPx = 6;

/**
 * An axis label's width in CSS px of the axis font, estimated from the average glyph width with
 * a margin (the SVG export cannot measure text): a label placed by it never runs past its room.
 */
export function axisLabelWidthPx(label: string, charWidthPx: number): number {
  return Math.ceil(label.length * charWidthPx * 1.1) + 2;
}

/**
 * Left x (CSS px) of each tick's label, or NaN where the label is dropped. A label starts
 * `axisLabelOffsetPx` right of its tick; one that would run past `rightPx` is shifted left to
 * end there, or dropped when the shift would bring it onto the label before it (or left of
 * `leftPx`). So the rightmost label is never clipped ("20" for "2000 µs").
 */
export function placeAxisLabels(
  ticks: readonly AxisTick[],
  tickXPx: (tick: AxisTick) => number,
  leftPx: number,
  rightPx: number,
  charWidthPx: number,
): Float64Array {
  const out = new Float64Array(ticks.length);
  let prevEndPx = -Infinity;
  for (let i = 0; i < ticks.length; i++) {
    const tick = ticks[i]!;
    const widthPx = axisLabelWidthPx(tick.label, charWidthPx);
    let xPx = tickXPx(tick) + axisLabelOffsetPx;
    if (xPx + widthPx > rightPx) {
      xPx = rightPx - widthPx;
    }
    if (xPx < leftPx || xPx < prevEndPx + axisLabelGapPx) {
      out[i] = Number.NaN;
      continue;
    }
    out[i] = xPx;
    prevEndPx = xPx + widthPx;
  }
  return out;
}
