import type { Trace } from '@streamscope/trace';
import { CanvasSurface } from './canvas-surface.ts';
import type { LegendEntry, Rgba } from './colors.ts';
import { chrome, opLegend } from './colors.ts';
import { ellipsize } from './draw-rows.ts';
import type { TimeWindow } from './frame-cache.ts';
import type { GapIndex } from './gaps.ts';
import { gapLegend } from './gaps.ts';
import type { FontRole, PaintSurface, StripTarget, TextAlign } from './paint-surface.ts';
import { queueDepthLegend } from './track-lanes.ts';
import { avgCharWidthPerFontPx, fontPx } from './paint-surface.ts';

/** Geometry of the band an export carries above the timeline: title line, then legend lines. */
const padPx = 8;
const titleLinePx = 20;
const legendLinePx = 16;
const swatchPx = 10;
const entryGapPx = 14;

/**
 * The window as an export names it, in one unit with 3 significant digits of its span:
 * 0 to 2.26 ms reads `{ text: '0.00–2.26 ms', file: '0.00-2.26ms' }`.
 */
export function windowLabel(window: TimeWindow): { readonly text: string; readonly file: string } {
  const spanNs = Math.max(1, window.endNs - window.startNs);
  const [unit, unitNs] =
    spanNs >= 1e9
      ? ['s', 1e9]
      : spanNs >= 1e6
        ? ['ms', 1e6]
        : spanNs >= 1e3
          ? ['µs', 1e3]
          : ['ns', 1];
  const decimals = Math.max(0, 2 - Math.floor(Math.log10(spanNs / unitNs)));
  const from = (window.startNs / unitNs).toFixed(decimals);
  const to = (window.endNs / unitNs).toFixed(decimals);
  return { text: `${from}–${to} ${unit}`, file: `${from}-${to}${unit === 'µs' ? 'us' : unit}` };
}

/**
 * What the picture shows, for its legend: the op kinds the trace holds (one entry per legend
 * line), the gap causes drawn (the idle shading when analysis named none) and the launch queue
 * depth area when its rows are shown.
 */
export function exportLegend(
  trace: Trace,
  gaps: GapIndex | undefined,
  queueShown = false,
): LegendEntry[] {
  const out = kindAndGapLegend(trace, gaps);
  if (queueShown) {
    out.push(queueDepthLegend);
  }
  return out;
}

function kindAndGapLegend(trace: Trace, gaps: GapIndex | undefined): LegendEntry[] {
  const kinds = trace.ops.columns().kind;
  const seen = new Uint8Array(256);
  for (let i = 0; i < kinds.length; i++) {
    seen[kinds[i]!] = 1;
  }
  const out = opLegend.filter((entry) => entry.kinds.some((kind) => seen[kind] === 1));
  if (gaps === undefined) {
    out.push(gapLegend[0]!);
    return out;
  }
  const causes = new Uint8Array(gapLegend.length);
  for (let i = 0; i < gaps.gaps.count; i++) {
    causes[Math.min(gapLegend.length - 1, gaps.gaps.cause[i]!)] = 1;
  }
  gapLegend.forEach((entry, cause) => {
    if (causes[cause] === 1) {
      out.push(entry);
    }
  });
  return out;
}

const labelCharPx = fontPx.label * avgCharWidthPerFontPx;

/** Left x of each legend entry and its line, flowing left to right within `widthPx`. */
function legendPlaces(
  legend: readonly LegendEntry[],
  widthPx: number,
): { x: number; line: number }[] {
  let x = padPx;
  let line = 0;
  return legend.map((entry) => {
    const entryPx = swatchPx + 4 + Math.ceil(entry.label.length * labelCharPx * 1.1) + entryGapPx;
    if (x > padPx && x + entryPx > widthPx - padPx) {
      x = padPx;
      line++;
    }
    const place = { x, line };
    x += entryPx;
    return place;
  });
}

/** Height of the export's band above the timeline for this legend at this width, CSS px. */
export function exportHeaderHeightPx(legend: readonly LegendEntry[], widthPx: number): number {
  const places = legendPlaces(legend, widthPx);
  const lines = places.length === 0 ? 0 : places[places.length - 1]!.line + 1;
  return padPx + titleLinePx + lines * legendLinePx + padPx;
}

/**
 * The band above an exported timeline: the trace's name and the window on the first line, the
 * legend (a swatch and a label per entry) below. The timeline under it carries the axis.
 */
export function paintExportHeader(
  surface: PaintSurface,
  title: string,
  window: TimeWindow,
  legend: readonly LegendEntry[],
): void {
  const widthPx = surface.widthPx;
  const heightPx = exportHeaderHeightPx(legend, widthPx);
  surface.fillRect(0, 0, widthPx, heightPx, chrome.background);
  const range = windowLabel(window).text;
  const titleText = `${ellipsize(title, widthPx - 2 * padPx - range.length * labelCharPx - 24, 'header')} · ${range}`;
  surface.text(titleText, padPx, padPx + titleLinePx / 2, chrome.text, 'header', 'left');
  legendPlaces(legend, widthPx).forEach(({ x, line }, i) => {
    const entry = legend[i]!;
    const midPx = padPx + titleLinePx + line * legendLinePx + legendLinePx / 2;
    surface.fillRect(x, midPx - swatchPx / 2, swatchPx, swatchPx, entry.color);
    surface.strokeRect(x, midPx - swatchPx / 2, swatchPx, swatchPx, chrome.rowLine, 1);
    surface.text(entry.label, x + swatchPx + 4, midPx, chrome.text, 'label', 'left');
  });
  surface.line(0, heightPx - 0.5, widthPx, heightPx - 0.5, chrome.axisLine, 1);
}

/** `inner` moved down by `dyPx`: the timeline painted under an export's header band. */
export class ShiftedSurface implements PaintSurface {
  readonly strips: StripTarget | undefined;

  constructor(
    private readonly inner: PaintSurface,
    private readonly dyPx: number,
  ) {
    const strips = inner.strips;
    this.strips =
      strips === undefined
        ? undefined
        : {
            get pixelRatio() {
              return strips.pixelRatio;
            },
            beginStrips: (slot, count, widthDevPx, keep) =>
              strips.beginStrips(slot, count, widthDevPx, keep),
            drawStrip: (index, xPx, yPx, wPx, hPx) =>
              strips.drawStrip(index, xPx, yPx + dyPx, wPx, hPx),
          };
  }

  get widthPx(): number {
    return this.inner.widthPx;
  }

  get heightPx(): number {
    return this.inner.heightPx - this.dyPx;
  }

  fillRect(xPx: number, yPx: number, wPx: number, hPx: number, color: Rgba): void {
    this.inner.fillRect(xPx, yPx + this.dyPx, wPx, hPx, color);
  }

  strokeRect(
    xPx: number,
    yPx: number,
    wPx: number,
    hPx: number,
    color: Rgba,
    lineWidthPx: number,
  ): void {
    this.inner.strokeRect(xPx, yPx + this.dyPx, wPx, hPx, color, lineWidthPx);
  }

  line(
    x0Px: number,
    y0Px: number,
    x1Px: number,
    y1Px: number,
    color: Rgba,
    lineWidthPx: number,
  ): void {
    this.inner.line(x0Px, y0Px + this.dyPx, x1Px, y1Px + this.dyPx, color, lineWidthPx);
  }

  arrow(x0Px: number, y0Px: number, x1Px: number, y1Px: number, color: Rgba): void {
    this.inner.arrow(x0Px, y0Px + this.dyPx, x1Px, y1Px + this.dyPx, color);
  }

  text(
    value: string,
    xPx: number,
    yPx: number,
    color: Rgba,
    role: FontRole,
    align: TextAlign,
    maxWidthPx?: number,
  ): void {
    this.inner.text(value, xPx, yPx + this.dyPx, color, role, align, maxWidthPx);
  }

  pushClip(xPx: number, yPx: number, wPx: number, hPx: number): void {
    this.inner.pushClip(xPx, yPx + this.dyPx, wPx, hPx);
  }

  popClip(): void {
    this.inner.popClip();
  }
}

/** What an export says about itself: the trace's name over the picture; 2× pixels for a PNG. */
export interface ExportOptions {
  readonly title?: string;
  /** Device px per CSS px of a PNG; 2 unless given (crisp on a high-density screen and in print). */
  readonly pixelRatio?: number;
}

/** Makes a canvas of `widthDevPx` × `heightDevPx` device px. */
export type CanvasFactory = (widthDevPx: number, heightDevPx: number) => HTMLCanvasElement;

/** A new canvas of `canvas`'s document, for painting an export off screen. */
export function documentCanvas(canvas: HTMLCanvasElement): CanvasFactory {
  return (widthDevPx, heightDevPx) => {
    const made = canvas.ownerDocument.createElement('canvas');
    made.width = widthDevPx;
    made.height = heightDevPx;
    return made;
  };
}

/** Paints `widthPx` × `heightPx` CSS px at `pixelRatio` on a new canvas and encodes it as PNG. */
export function paintPng(
  makeCanvas: CanvasFactory,
  widthPx: number,
  heightPx: number,
  pixelRatio: number,
  paint: (surface: PaintSurface) => void,
): Promise<Blob> {
  const target = makeCanvas(Math.round(widthPx * pixelRatio), Math.round(heightPx * pixelRatio));
  const ctx = target.getContext('2d');
  if (ctx === null) {
    return Promise.reject(new Error('the PNG export needs a 2D canvas context'));
  }
  const surface = new CanvasSurface(ctx);
  surface.begin(widthPx, heightPx, pixelRatio);
  paint(surface);
  return new Promise((resolve, reject) => {
    target.toBlob((blob) => {
      if (blob === null) {
        reject(new Error('the canvas could not be encoded as PNG'));
      } else {
        resolve(blob);
      }
    }, 'image/png');
  });
}
