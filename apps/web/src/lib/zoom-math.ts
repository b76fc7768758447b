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
