import { useLayoutEffect } from 'react';
import type { RefObject } from 'react';

/** Room left under the element at the bottom of the window, CSS px (the page's padding). */
const bottomMarginPx = 12;

/**
 * The height that makes an element whose top is `topPx` from the top of the document end at the
 * bottom of a window `windowHeightPx` tall, never below `minHeightPx`.
 */
export function fillHeightPx(windowHeightPx: number, topPx: number, minHeightPx: number): number {
  return Math.max(minHeightPx, Math.floor(windowHeightPx - topPx - bottomMarginPx));
}

/**
 * Sizes the element to fill the window below where it starts, following window resizes and
 * changes of what sits above it (a toolbar that wraps, warnings that appear).
 */
export function useFillHeight(
  ref: RefObject<HTMLElement | null>,
  minHeightPx: number,
  /** Whether the element is mounted now (the hook looks for it again when this changes). */
  mounted: boolean,
): void {
  useLayoutEffect(() => {
    const element = ref.current;
    if (element === null) {
      return;
    }
    const apply = (): void => {
      const topPx = element.getBoundingClientRect().top + window.scrollY;
      const heightPx = fillHeightPx(window.innerHeight, topPx, minHeightPx);
      if (element.style.height !== `${heightPx}px`) {
        element.style.height = `${heightPx}px`;
      }
    };
    apply();
    window.addEventListener('resize', apply);
    // What is above the element (a toolbar that wraps) moves its top and resizes the body.
    const observer = new ResizeObserver(apply);
    observer.observe(document.body);
    return () => {
      window.removeEventListener('resize', apply);
      observer.disconnect();
    };
  }, [ref, minHeightPx, mounted]);
}
