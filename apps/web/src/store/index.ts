import { createStore } from 'zustand/vanilla';
import { createEditorSlice } from './editor-slice.ts';
import type { EditorSlice } from './editor-slice.ts';
import { createFilterSlice } from './filter-slice.ts';
import type { FilterSlice } from './filter-slice.ts';
import { createRunSlice } from './run-slice.ts';
import type { RunSlice } from './run-slice.ts';
import { createSelectionSlice } from './selection-slice.ts';
import type { SelectionSlice } from './selection-slice.ts';
import { createTraceSlice } from './trace-slice.ts';
import type { TraceSlice } from './trace-slice.ts';
import { createUiSlice } from './ui-slice.ts';
import type { UiSlice } from './ui-slice.ts';
import { createViewportSlice } from './viewport-slice.ts';
import type { ViewportSlice } from './viewport-slice.ts';

export type AppState = TraceSlice &
  ViewportSlice &
  SelectionSlice &
  FilterSlice &
  UiSlice &
  RunSlice &
  EditorSlice;

/** The one bound store. React reads it with `useStore(appStore, selector)`; the canvas subscribes. */
export const appStore = createStore<AppState>()((...args) => ({
  ...createTraceSlice(...args),
  ...createViewportSlice(...args),
  ...createSelectionSlice(...args),
  ...createFilterSlice(...args),
  ...createUiSlice(...args),
  ...createRunSlice(...args),
  ...createEditorSlice(...args),
}));
