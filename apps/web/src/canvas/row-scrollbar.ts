import type { ScrollInfo, TimelineView } from '@streamscope/timeline';

/** Where the scrollbar sits over the canvas and how tall its content is, CSS px. */
export interface ScrollbarGeometry {
  readonly shown: boolean;
  /** From the canvas top: under the axis and the pinned band. */
  readonly topPx: number;
  readonly heightPx: number;
  readonly contentHeightPx: number;
}

/** The scrollbar of the scrolling rows: shown only when they do not all fit. */
export function scrollbarGeometry(scroll: ScrollInfo, canvasHeightPx: number): ScrollbarGeometry {
  return {
    shown: scroll.contentHeightPx > scroll.visibleHeightPx + 0.5,
    topPx: Math.max(0, canvasHeightPx - scroll.visibleHeightPx),
    heightPx: scroll.visibleHeightPx,
    contentHeightPx: scroll.contentHeightPx,
  };
}

/**
 * Drives a native scrollbar (`bar`, an overflow-y element over the canvas' right edge) from the
 * view's row scroll and back: dragging it scrolls the rows, and any scroll of the rows (wheel over
 * the labels, a drag on the canvas) moves it. Returns the function that detaches it.
 */
export function attachRowScrollbar(
  bar: HTMLElement,
  canvas: HTMLCanvasElement,
  view: TimelineView,
): () => void {
  const spacer = document.createElement('div');
  spacer.style.width = '1px';
  bar.replaceChildren(spacer);
  const sync = (): void => {
    const scroll = view.getScroll();
    const geometry = scrollbarGeometry(scroll, canvas.clientHeight);
    bar.hidden = !geometry.shown;
    bar.style.top = `${geometry.topPx}px`;
    bar.style.height = `${geometry.heightPx}px`;
    spacer.style.height = `${geometry.contentHeightPx}px`;
    if (Math.abs(bar.scrollTop - scroll.scrollTopPx) >= 1) {
      bar.scrollTop = scroll.scrollTopPx;
    }
  };
  const onScroll = (): void => {
    if (Math.abs(bar.scrollTop - view.getScroll().scrollTopPx) >= 1) {
      view.setScrollTopPx(bar.scrollTop);
    }
  };
  // The wheel over the bar scrolls the rows like the wheel over the labels.
  const onWheel = (event: WheelEvent): void => {
    event.preventDefault();
    view.setScrollTopPx(view.getScroll().scrollTopPx + event.deltaY);
  };
  bar.addEventListener('scroll', onScroll);
  bar.addEventListener('wheel', onWheel, { passive: false });
  const offFrame = view.onFrame(sync);
  sync();
  return () => {
    offFrame();
    bar.removeEventListener('scroll', onScroll);
    bar.removeEventListener('wheel', onWheel);
  };
}
