/** The visible time window, ns since the trace origin (Float64, exact). */
export interface Viewport {
  readonly startNs: number;
  readonly endNs: number;
}

/** The narrowest window a view shows: 10 ns across the whole width. */
export const minSpanNs = 10;

/** A window with start < end, at least `minSpanNs` wide, finite. */
export function clampViewport(viewport: Viewport): Viewport {
  let { startNs, endNs } = viewport;
  if (!Number.isFinite(startNs)) {
    startNs = 0;
  }
  if (!Number.isFinite(endNs) || endNs - startNs < minSpanNs) {
    const midNs = Number.isFinite(endNs) ? (startNs + endNs) / 2 : startNs;
    startNs = midNs - minSpanNs / 2;
    endNs = midNs + minSpanNs / 2;
  }
  return { startNs, endNs };
}

/** The whole trace [0, spanNs] with 2% of air on each side (1 ms when the trace is empty). */
export function fitViewport(spanNs: number): Viewport {
  const span = spanNs > 0 ? spanNs : 1e6;
  const padNs = span * 0.02;
  return { startNs: -padNs, endNs: span + padNs };
}

/** Zooms by `factor` (> 1 zooms in) around `anchorNs`, which keeps its place on screen. */
export function zoomViewport(viewport: Viewport, anchorNs: number, factor: number): Viewport {
  const f = factor > 0 ? factor : 1;
  return clampViewport({
    startNs: anchorNs - (anchorNs - viewport.startNs) / f,
    endNs: anchorNs + (viewport.endNs - anchorNs) / f,
  });
}

export function panViewport(viewport: Viewport, deltaNs: number): Viewport {
  return { startNs: viewport.startNs + deltaNs, endNs: viewport.endNs + deltaNs };
}

/**
 * The starts that keep a window `widthNs` wide within [loNs, hiNs]: a window narrower than the
 * bounds stays inside them, and a wider one keeps all of them in view. The one rule behind the
 * pans (`panWithinTrace`) and the windows a "show" or a zoom places (`placeInTrace`).
 */
function startBounds(
  widthNs: number,
  loNs: number,
  hiNs: number,
): { readonly lowNs: number; readonly highNs: number } {
  // Narrow: start in [lo, hi - width]. Wide: start in [hi - width, lo].
  return widthNs <= hiNs - loNs
    ? { lowNs: loNs, highNs: hiNs - widthNs }
    : { lowNs: hiNs - widthNs, highNs: loNs };
}

/**
 * `viewport` moved, its width kept, so it starts no earlier than the trace's first op (0) and
 * ends no later than its span, by the rule the pans keep to (`startBounds`). A window wider than
 * the trace becomes the trace: a window placed around ops (a show, a search match) never shows
 * time before 0 or past the end. Nothing to place against before the trace has a span.
 */
export function placeInTrace(viewport: Viewport, spanNs: number): Viewport {
  if (!(spanNs > 0)) {
    return viewport;
  }
  const widthNs = viewport.endNs - viewport.startNs;
  if (widthNs >= spanNs) {
    return { startNs: 0, endNs: spanNs };
  }
  const { lowNs, highNs } = startBounds(widthNs, 0, spanNs);
  const startNs = Math.min(highNs, Math.max(lowNs, viewport.startNs));
  return startNs === viewport.startNs ? viewport : { startNs, endNs: startNs + widthNs };
}

/**
 * A pan that stops at the trace's edges (the air `fitViewport` leaves): a window narrower than
 * the whole trace stays inside it, and a wider one keeps the whole trace in view. Nothing to bound
 * against before the trace has a span.
 */
export function panWithinTrace(viewport: Viewport, deltaNs: number, spanNs: number): Viewport {
  const moved = panViewport(viewport, deltaNs);
  if (!(spanNs > 0)) {
    return moved;
  }
  const fit = fitViewport(spanNs);
  const widthNs = moved.endNs - moved.startNs;
  const { lowNs, highNs } = startBounds(widthNs, fit.startNs, fit.endNs);
  // A window a caller put beyond a bound is not pulled back; it only cannot go further out.
  const startNs =
    deltaNs >= 0
      ? Math.min(moved.startNs, Math.max(highNs, viewport.startNs))
      : Math.max(moved.startNs, Math.min(lowNs, viewport.startNs));
  return { startNs, endNs: startNs + widthNs };
}
