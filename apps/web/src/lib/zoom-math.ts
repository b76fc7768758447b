import { placeInTrace } from '@streamscope/timeline';
import { minViewSpanNs } from '../store/viewport-slice.ts';

export interface TimeWindow {
  readonly startNs: number;
  readonly endNs: number;
}

/** A window around [startNs, endNs] with `padFraction` of its width added on each side. */
export function windowAround(startNs: number, endNs: number, padFraction = 0.1): TimeWindow {
  const spanNs = Math.max(minViewSpanNs, endNs - startNs);
  const padNs = spanNs * padFraction;
  return { startNs: startNs - padNs, endNs: startNs + spanNs + padNs };
}

/** Narrowest an op that "show" leaves in view is drawn, CSS px: thinner, a person misses it. */
export const minShownOpPx = 3;
/** How wide "show" draws the current op when it zooms in because all the ops were too thin. */
export const focusOpPx = 16;

/** What a "show" brings into view: some ops, one of which is current (selected first). */
export interface ShowTarget {
  /** First start and last end of all the ops, ns. */
  readonly fromNs: number;
  readonly toNs: number;
  /** The current op, which must come out at least `minShownOpPx` wide. */
  readonly currentStartNs: number;
  readonly currentEndNs: number;
}

/**
 * The window a "show" moves to (a finding's ops, a search match, the next op of a set), in the
 * normal view and in tiled mode alike, placed inside the trace (`placeInTrace`):
 * - `keep` (the view now), recentred on the current op, when that op is already at least
 *   `minShownOpPx` wide in it and takes under 80% of it;
 * - else every op, first start to last end with 5% of room each side, when the current op is at
 *   least `minShownOpPx` wide there;
 * - else (ops far apart, or thin) the window that shows the current op `focusOpPx` wide,
 *   starting just before it so that it reaches toward the others (next/previous step to them).
 * One op alone always fits the second case: it takes about 90% of the width.
 */
export function showWindow(
  target: ShowTarget,
  plotWidthPx: number,
  spanNs: number,
  keep?: TimeWindow,
): TimeWindow {
  const currentNs = target.currentEndNs - target.currentStartNs;
  // An op without duration is drawn as a mark at any zoom.
  const readable = (view: TimeWindow): boolean =>
    currentNs <= 0 ||
    (currentNs * plotWidthPx) / Math.max(1, view.endNs - view.startNs) >= minShownOpPx;
  const midNs = (target.currentStartNs + target.currentEndNs) / 2;
  let view: TimeWindow;
  if (keep !== undefined && keep.endNs > keep.startNs && readable(keep)) {
    const widthNs = keep.endNs - keep.startNs;
    view =
      currentNs < widthNs * 0.8
        ? { startNs: midNs - widthNs / 2, endNs: midNs + widthNs / 2 }
        : windowAround(target.currentStartNs, target.currentEndNs);
  } else {
    const all = windowAround(target.fromNs, target.toNs, 0.05);
    if (readable(all)) {
      view = all;
    } else {
      const widthNs = Math.max(minViewSpanNs, (currentNs * plotWidthPx) / focusOpPx);
      const startNs = target.currentStartNs - widthNs * 0.05;
      view = { startNs, endNs: startNs + widthNs };
    }
  }
  return placeInTrace(view, spanNs);
}

/** What a key does, by `event.code` so it is the same key on QWERTY, AZERTY and Dvorak. */
export type KeyAction =
  /** factor > 1 zooms in (the renderer's convention), around the middle of the view. */
  | { readonly kind: 'zoom'; readonly factor: number }
  /** Fraction of the visible width; positive moves later in time. */
  | { readonly kind: 'pan'; readonly fraction: number }
  | { readonly kind: 'focus' }
  | { readonly kind: 'clear' };

export function keyAction(code: string): KeyAction | null {
  switch (code) {
    case 'KeyW':
      return { kind: 'zoom', factor: 1.25 };
    case 'KeyS':
      return { kind: 'zoom', factor: 0.8 };
    case 'KeyA':
      return { kind: 'pan', fraction: -0.15 };
    case 'KeyD':
      return { kind: 'pan', fraction: 0.15 };
    case 'KeyF':
      return { kind: 'focus' };
    case 'Escape':
      return { kind: 'clear' };
    default:
      return null;
  }
}

/**
 * The window a zoom gesture shows. At the gesture's start, screen x in [leftPx, rightPx] showed
 * `start`; d3-zoom has since moved its transform from t0 to t. A screen x now shows what
 * t0.applyX(t.invertX(x)) showed then, so both edges map back through the start window.
 */
export function gestureWindow(
  start: TimeWindow,
  leftPx: number,
  rightPx: number,
  mapBack: (xPx: number) => number,
): TimeWindow {
  const nsPerPx = (start.endNs - start.startNs) / Math.max(1, rightPx - leftPx);
  const timeAt = (xPx: number): number => start.startNs + (mapBack(xPx) - leftPx) * nsPerPx;
  return { startNs: timeAt(leftPx), endNs: timeAt(rightPx) };
}
