import type { Rgba } from './colors.ts';

export type TextAlign = 'left' | 'center' | 'right';
export type FontRole = 'label' | 'axis' | 'header';

/** Font size in px per role; the canvas and the SVG export use the same sizes. */
export const fontPx: Record<FontRole, number> = { label: 11, axis: 10, header: 11 };
export const fontFamily = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** A rough average glyph width per px of font size, for fitting labels without measuring. */
export const avgCharWidthPerFontPx = 0.58;

/**
 * Pixel strips (strip-raster.ts): one line of device pixels per row lane, drawn stretched to the
 * lane's height. Backends without it (SVG) get each rectangle as a fillRect instead.
 */
export interface StripTarget {
  readonly pixelRatio: number;
  /**
   * Starts `count` strips `widthDevPx` wide in `slot` (0 for the scrolling rows, 1 for the
   * pinned band) and returns their pixels, strip after strip: transparent, or with `keep` as
   * the slot's last frame left them (its count and width must be these).
   */
  beginStrips(slot: number, count: number, widthDevPx: number, keep: boolean): Uint32Array;
  /** Draws strip `index` over the CSS px rectangle (uploading the pixels on the first call). */
  drawStrip(index: number, xPx: number, yPx: number, wPx: number, hPx: number): void;
}

/**
 * The small drawing abstraction every pass paints through, in CSS px. Canvas2D is the reference
 * backend; the SVG export implements the same calls, so an export matches the screen.
 */
export interface PaintSurface {
  readonly widthPx: number;
  readonly heightPx: number;
  /** Present where the backend can draw pixel strips. */
  readonly strips?: StripTarget | undefined;
  fillRect(xPx: number, yPx: number, wPx: number, hPx: number, color: Rgba): void;
  strokeRect(
    xPx: number,
    yPx: number,
    wPx: number,
    hPx: number,
    color: Rgba,
    lineWidthPx: number,
  ): void;
  line(
    x0Px: number,
    y0Px: number,
    x1Px: number,
    y1Px: number,
    color: Rgba,
    lineWidthPx: number,
  ): void;
  /** A curved arrow from (x0, y0) to (x1, y1) with its head at the end. */
  arrow(x0Px: number, y0Px: number, x1Px: number, y1Px: number, color: Rgba): void;
  /** Text on one line with its vertical middle at yPx. */
  text(
    value: string,
    xPx: number,
    yPx: number,
    color: Rgba,
    role: FontRole,
    align: TextAlign,
    maxWidthPx?: number,
  ): void;
  pushClip(xPx: number, yPx: number, wPx: number, hPx: number): void;
  popClip(): void;
}

/** Arrow head geometry shared by the backends: the two barbs' end points, into `out`. */
export function arrowHead(
  x0Px: number,
  y0Px: number,
  x1Px: number,
  y1Px: number,
  out: Float64Array,
): void {
  const angle = Math.atan2(y1Px - y0Px, x1Px - x0Px);
  const lengthPx = 7;
  const spread = 0.45;
  out[0] = x1Px - lengthPx * Math.cos(angle - spread);
  out[1] = y1Px - lengthPx * Math.sin(angle - spread);
  out[2] = x1Px - lengthPx * Math.cos(angle + spread);
  out[3] = y1Px - lengthPx * Math.sin(angle + spread);
}

/** Control point of an arrow's curve: it leaves horizontally so flows between rows read. */
export function arrowControl(
  x0Px: number,
  y0Px: number,
  x1Px: number,
  y1Px: number,
  out: Float64Array,
): void {
  out[4] = (x0Px + x1Px) / 2;
  out[5] = Math.min(y0Px, y1Px) - Math.min(24, Math.abs(x1Px - x0Px) / 4 + 6);
}
