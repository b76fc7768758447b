import { useStore } from 'zustand';
import { appStore } from './index.ts';
import type { AppState } from './index.ts';

/** Reads one value of the bound store in a component (never the whole state). */
export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(appStore, selector);
}
