import { createStore } from 'zustand/vanilla';
import type { LessonFinding, LessonSideName } from './lesson-finding.ts';
import type { LessonParams } from './lesson-types.ts';
import type { LessonPairSummary } from './run-lesson-pair.ts';

export type LessonBackend = 'sim' | 'cuda';
export type LessonStatus = 'idle' | 'running' | 'ready' | 'error';

/** The highlighted finding: its ops are marked on the timeline of its side. */
export interface LessonHighlight {
  readonly key: string;
  readonly side: LessonSideName;
  readonly opIndices: readonly number[];
}

export interface LessonState {
  readonly lessonId: string | null;
  readonly params: LessonParams;
  readonly profile: string;
  readonly backend: LessonBackend;
  readonly status: LessonStatus;
  readonly error: string | null;
  /** The last finished pair (plain data; the traces sit in lesson-traces.ts). */
  readonly summary: LessonPairSummary | null;
  /** Bumped whenever the traces in the registry change. */
  readonly tracesVersion: number;
  readonly highlight: LessonHighlight | null;
  /** On the GPU backend: the makespans the simulator predicted for the same pair. */
  readonly simulated: { readonly beforeNs: number; readonly afterNs: number } | null;
}

export function initialLessonState(): LessonState {
  return {
    lessonId: null,
    params: {},
    profile: 'h100',
    backend: 'sim',
    status: 'idle',
    error: null,
    summary: null,
    tracesVersion: 0,
    highlight: null,
    simulated: null,
  };
}

/** State of the Lessons section. Actions live in lesson-controller.ts, which owns the runner. */
export const lessonStore = createStore<LessonState>()(() => initialLessonState());

export function toggleHighlight(finding: LessonFinding): void {
  const current = lessonStore.getState().highlight;
  lessonStore.setState({
    highlight:
      current?.key === finding.key
        ? null
        : { key: finding.key, side: finding.side, opIndices: finding.opIndices },
  });
}
