import { act } from 'react';
import type { Root } from 'react-dom/client';
import { createRoot } from 'react-dom/client';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean | undefined;
}

/** A React root in a fresh container in the document; `unmount` removes both. */
export interface TestRoot {
  readonly container: HTMLDivElement;
  readonly root: Root;
  unmount(): void;
}

/** Mounts a root for a component test, with act() warnings on as React wants for tests. */
export function mountTestRoot(): TestRoot {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  return {
    container,
    root,
    unmount() {
      act(() => root.unmount());
      container.remove();
    },
  };
}
