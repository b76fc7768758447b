import type { LessonParams } from './lesson-types.ts';
import type { LessonPairSummary } from './run-lesson-pair.ts';

/** Main thread → lesson worker: run one lesson pair. */
export interface LessonRequest {
  readonly requestId: number;
  readonly lessonId: string;
  readonly params: LessonParams;
  readonly profile: string;
}

/** Lesson worker → main thread. Traces travel as saveTrace bytes, their buffers transferred. */
export type LessonResponse =
  | {
      readonly type: 'pair';
      readonly requestId: number;
      readonly summary: LessonPairSummary;
      readonly beforeBytes: Uint8Array;
      readonly afterBytes: Uint8Array;
    }
  | { readonly type: 'error'; readonly requestId: number; readonly message: string };
