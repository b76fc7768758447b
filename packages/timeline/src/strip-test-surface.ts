import type { Trace } from '@streamscope/trace';
import type { TimeWindow } from './frame-cache.ts';
import type { FrameCache } from './frame-cache.ts';
import type { FrameInput } from './frame-input.ts';
import type { RowLayout } from './layout.ts';
import type { PaintSurface, StripTarget } from './paint-surface.ts';

// Test-only (not exported from the package): a paint surface that keeps what a frame drew.

/** `src` over `dst`, both 0xAABBGGRR with straight alpha, as drawImage composites. */
function over(dst: number, src: number): number {
  const sa = (src >>> 24) / 255;
  const da = (dst >>> 24) / 255;
  const a = sa + da * (1 - sa);
  if (a === 0) {
    return 0;
  }
  const channel = (shift: number) =>
    Math.round((((src >>> shift) & 0xff) * sa + ((dst >>> shift) & 0xff) * da * (1 - sa)) / a);
  return ((Math.round(a * 255) << 24) | (channel(16) << 16) | (channel(8) << 8) | channel(0)) >>> 0;
}

/**
 * A surface that keeps strip pixels and records strip draws, filled rectangles and text. With
 * `withStrips` false it has no strips, as the SVG export: every rectangle is a fillRect.
 */
export function recordingSurface(
  widthPx: number,
  heightPx: number,
  pixelRatio: number,
  withStrips = true,
) {
  /** Each draw with the strip's pixels as drawn (its slot's, uploaded for that frame). */
  const draws: {
    index: number;
    xPx: number;
    yPx: number;
    wPx: number;
    hPx: number;
    pixels: Uint32Array;
  }[] = [];
  const slots: Uint32Array<ArrayBuffer>[] = [];
  const keeps: boolean[] = [];
  let pixels = new Uint32Array(0);
  let stripWidthPx = 0;
  let fillRects = 0;
  const rects: { xPx: number; yPx: number; wPx: number; hPx: number; color: number }[] = [];
  const strokes: { xPx: number; yPx: number; wPx: number; hPx: number; color: number }[] = [];
  const texts: { value: string; xPx: number; yPx: number }[] = [];
  const arrows: { x0Px: number; y0Px: number; x1Px: number; y1Px: number }[] = [];
  const strips: StripTarget = {
    pixelRatio,
    beginStrips(slot, count, widthDevPx, keep) {
      keeps.push(keep);
      let kept = slots[slot];
      if (!keep || kept?.length !== count * widthDevPx) {
        kept = new Uint32Array(count * widthDevPx);
        slots[slot] = kept;
      }
      pixels = kept;
      stripWidthPx = widthDevPx;
      return pixels;
    },
    drawStrip(index, xPx, yPx, wPx, hPx) {
      draws.push({ index, xPx, yPx, wPx, hPx, pixels: strip(index).slice() });
    },
  };
  const surface: PaintSurface = {
    widthPx,
    heightPx,
    strips: withStrips ? strips : undefined,
    fillRect: (xPx, yPx, wPx, hPx, color) => {
      fillRects++;
      rects.push({ xPx, yPx, wPx, hPx, color });
    },
    strokeRect: (xPx, yPx, wPx, hPx, color) => {
      strokes.push({ xPx, yPx, wPx, hPx, color });
    },
    line: () => undefined,
    arrow: (x0Px, y0Px, x1Px, y1Px) => {
      arrows.push({ x0Px, y0Px, x1Px, y1Px });
    },
    text: (value, xPx, yPx) => {
      texts.push({ value, xPx, yPx });
    },
    pushClip: () => undefined,
    popClip: () => undefined,
  };
  const strip = (index: number) =>
    pixels.subarray(index * stripWidthPx, (index + 1) * stripWidthPx);
  /** The screen the strip draws composite to, a row per CSS px (each draw over whole rows). */
  const screen = (): Uint32Array => {
    const out = new Uint32Array(stripWidthPx * heightPx);
    for (const d of draws) {
      for (let y = Math.round(d.yPx); y < Math.round(d.yPx + d.hPx); y++) {
        for (let x = 0; x < stripWidthPx; x++) {
          out[y * stripWidthPx + x] = over(out[y * stripWidthPx + x]!, d.pixels[x]!);
        }
      }
    }
    return out;
  };
  return {
    surface,
    draws,
    keeps,
    strip,
    screen,
    rects,
    strokes,
    texts,
    arrows,
    fillRects: () => fillRects,
  };
}

/** A frame of `trace` over `window` on a 1000 CSS px wide surface with a 200 px gutter. */
export function frameInput(
  trace: Trace,
  layout: RowLayout,
  cache: FrameCache,
  window: TimeWindow,
  heightPx: number,
): FrameInput {
  return {
    trace,
    layout,
    cache,
    window,
    widthPx: 1000,
    heightPx,
    gutterPx: 200,
    axisHeightPx: 28,
    scrollTopPx: 0,
    selectedOp: undefined,
    selectedFlows: [],
    search: undefined,
    currentMatch: undefined,
    area: undefined,
    cursorNs: undefined,
    mark: undefined,
    selectedRange: undefined,
    selectedGap: undefined,
  };
}
