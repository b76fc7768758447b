/** A preset parameter's value as the workload presets take it. */
export type ParamValue = number | boolean | string;

export type LessonParams = Readonly<Record<string, ParamValue>>;

/**
 * What removing the pitfall should do to the makespan on a device profile: `faster` means
 * speedup = before / after > 1, `slower` < 1, `same` within `sameTolerance` of 1.
 */
export type ExpectedEffect = 'faster' | 'slower' | 'same';

/** Speedups within this share of 1.0 count as "the same" (the K20c runs both orders in ~6u). */
export const sameTolerance = 0.1;

export interface LessonPitfall {
  /** The preset parameter that switches the pitfall. */
  readonly param: string;
  /** Its value with the pitfall present (the "before" run). */
  readonly onValue: ParamValue;
  /** Its value with the pitfall fixed (the "after" run). */
  readonly offValue: ParamValue;
  /** How the UI names each setting, e.g. "pageable (malloc)". */
  readonly onLabel: string;
  readonly offLabel: string;
}

export interface Lesson {
  /** URL-safe and stable: used in links and e2e test ids. */
  readonly id: string;
  readonly title: string;
  /** One line for the list. */
  readonly summary: string;
  /** A few short paragraphs: what the pitfall is and what to look for on the two timelines. */
  readonly explanation: readonly string[];
  /** Name of the workload preset behind the lesson. */
  readonly preset: string;
  readonly pitfall: LessonPitfall;
  /** Preset parameters shown as sliders, in display order. */
  readonly sliders: readonly string[];
  /** Parameters this lesson pins, whatever the preset's defaults. */
  readonly fixedParams: LessonParams;
  /**
   * Profiles worth trying here, each with what removing the pitfall does there on the
   * simulator (unit tests hold the catalogue to it).
   */
  readonly effects: Readonly<Record<string, ExpectedEffect>>;
  /** Device profile the lesson opens on (one of `effects`). */
  readonly defaultProfile: string;
  /** What the speedup compares; the makespan when absent. */
  readonly measure?: LessonMeasure;
  /**
   * An analysis figure shown beside the speedup: `commCompute` is the share of communication
   * kernel time that ran under compute kernels (analysis metrics' overlap.commCompute).
   */
  readonly figure?: 'commCompute';
  /**
   * GPUs its default runs use (1 when absent). The measured fidelity runs
   * (fixtures/runs/fidelity-*.json) are of one-GPU lessons on one GPU.
   */
  readonly gpus?: number;
}

/** Mean latency of the kernels whose name starts with `namePrefix`: launch call start to kernel end. */
export interface LessonMeasure {
  readonly namePrefix: string;
  /** What the UI calls it, e.g. "urgent-kernel latency". */
  readonly label: string;
}

/** The direction a measured speedup falls in. */
export function effectOfSpeedup(speedup: number): ExpectedEffect {
  if (Math.abs(speedup - 1) <= sameTolerance) {
    return 'same';
  }
  return speedup > 1 ? 'faster' : 'slower';
}

/** The profiles a lesson offers first, its default at the head. */
export function lessonProfiles(lesson: Lesson): string[] {
  return [
    lesson.defaultProfile,
    ...Object.keys(lesson.effects).filter((name) => name !== lesson.defaultProfile),
  ];
}
