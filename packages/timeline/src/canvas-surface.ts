import type { Rgba } from './colors.ts';
import { cssColor } from './colors.ts';
import type { FontRole, PaintSurface, StripTarget, TextAlign } from './paint-surface.ts';
import { arrowControl, arrowHead, fontFamily, fontPx } from './paint-surface.ts';

/** The Canvas2D backend: draws in CSS px on a context already scaled by devicePixelRatio. */
export class CanvasSurface implements PaintSurface {
  widthPx = 0;
  heightPx = 0;
  private lastFill: Rgba = -1;
  private lastStroke: Rgba = -1;
  private lastFont: FontRole | '' = '';
  private lastAlign: TextAlign | '' = '';
  private readonly css = new Map<Rgba, string>();
  private readonly geometry = new Float64Array(6);

  /** Pixel strips where OffscreenCanvas exists (every current browser; not node). */
  readonly strips: CanvasStrips | undefined;

  constructor(private readonly ctx: CanvasRenderingContext2D) {
    this.strips = typeof OffscreenCanvas === 'undefined' ? undefined : new CanvasStrips(ctx);
  }

  /** Starts a frame: the caller has sized the canvas; cached state is re-applied. */
  begin(widthPx: number, heightPx: number, pixelRatio: number): void {
    this.widthPx = widthPx;
    this.heightPx = heightPx;
    this.ctx.setTransform(pixelRatio, 0, 0, pixelRatio, 0, 0);
    if (this.strips !== undefined) {
      this.strips.pixelRatio = pixelRatio;
    }
    this.lastFill = -1;
    this.lastStroke = -1;
    this.lastFont = '';
    this.lastAlign = '';
    this.ctx.textBaseline = 'middle';
  }

  private cssOf(color: Rgba): string {
    let value = this.css.get(color);
    if (value === undefined) {
      value = cssColor(color);
      this.css.set(color, value);
    }
    return value;
  }

  fillRect(xPx: number, yPx: number, wPx: number, hPx: number, color: Rgba): void {
    if (color !== this.lastFill) {
      this.ctx.fillStyle = this.cssOf(color);
      this.lastFill = color;
    }
    this.ctx.fillRect(xPx, yPx, wPx, hPx);
  }

  private stroke(color: Rgba, lineWidthPx: number): void {
    if (color !== this.lastStroke) {
      this.ctx.strokeStyle = this.cssOf(color);
      this.lastStroke = color;
    }
    this.ctx.lineWidth = lineWidthPx;
  }

  strokeRect(
    xPx: number,
    yPx: number,
    wPx: number,
    hPx: number,
    color: Rgba,
    lineWidthPx: number,
  ): void {
    this.stroke(color, lineWidthPx);
    this.ctx.strokeRect(xPx, yPx, wPx, hPx);
  }

  line(
    x0Px: number,
    y0Px: number,
    x1Px: number,
    y1Px: number,
    color: Rgba,
    lineWidthPx: number,
  ): void {
    this.stroke(color, lineWidthPx);
    this.ctx.beginPath();
    this.ctx.moveTo(x0Px, y0Px);
    this.ctx.lineTo(x1Px, y1Px);
    this.ctx.stroke();
  }

  arrow(x0Px: number, y0Px: number, x1Px: number, y1Px: number, color: Rgba): void {
    const g = this.geometry;
    arrowControl(x0Px, y0Px, x1Px, y1Px, g);
    arrowHead(g[4]!, g[5]!, x1Px, y1Px, g);
    this.stroke(color, 1.5);
    const ctx = this.ctx;
    ctx.beginPath();
    ctx.moveTo(x0Px, y0Px);
    ctx.quadraticCurveTo(g[4]!, g[5]!, x1Px, y1Px);
    ctx.stroke();
    if (color !== this.lastFill) {
      ctx.fillStyle = this.cssOf(color);
      this.lastFill = color;
    }
    ctx.beginPath();
    ctx.moveTo(x1Px, y1Px);
    ctx.lineTo(g[0]!, g[1]!);
    ctx.lineTo(g[2]!, g[3]!);
    ctx.closePath();
    ctx.fill();
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
    if (role !== this.lastFont) {
      this.ctx.font = `${role === 'header' ? '600 ' : ''}${fontPx[role]}px ${fontFamily}`;
      this.lastFont = role;
    }
    if (color !== this.lastFill) {
      this.ctx.fillStyle = this.cssOf(color);
      this.lastFill = color;
    }
    if (align !== this.lastAlign) {
      // Canvas state setters parse their value: set each only when it changes.
      this.ctx.textAlign = align;
      this.lastAlign = align;
    }
    if (maxWidthPx === undefined) {
      this.ctx.fillText(value, xPx, yPx);
    } else {
      this.ctx.fillText(value, xPx, yPx, maxWidthPx);
    }
  }

  pushClip(xPx: number, yPx: number, wPx: number, hPx: number): void {
    this.ctx.save();
    this.ctx.beginPath();
    this.ctx.rect(xPx, yPx, wPx, hPx);
    this.ctx.clip();
  }

  popClip(): void {
    this.ctx.restore();
    // restore() brings back the styles saved with the clip; forget the cached ones.
    this.lastFill = -1;
    this.lastStroke = -1;
    this.lastFont = '';
    this.lastAlign = '';
  }
}

/** One slot's strips: an ImageData and the OffscreenCanvas it is uploaded to. */
interface StripSlot {
  readonly canvas: OffscreenCanvas;
  readonly ctx: OffscreenCanvasRenderingContext2D | null;
  readonly image: ImageData;
  readonly pixels: Uint32Array;
}

/**
 * Strips in an ImageData per slot on an OffscreenCanvas: one putImageData per frame region, then
 * a drawImage per strip, stretched vertically with smoothing off so edges stay crisp. A slot's
 * pixels stay from frame to frame, for a pan to move them.
 */
class CanvasStrips implements StripTarget {
  pixelRatio = 1;
  private readonly slots: (StripSlot | undefined)[] = [];
  private current: StripSlot | undefined;
  private widthDevPx = 0;
  private count = 0;
  private uploaded = false;

  constructor(private readonly ctx: CanvasRenderingContext2D) {}

  beginStrips(slot: number, count: number, widthDevPx: number, keep: boolean): Uint32Array {
    let strips = this.slots[slot];
    if (strips === undefined || strips.image.width !== widthDevPx || strips.image.height < count) {
      const old = strips?.image;
      const height = Math.max(count, (old?.height ?? 0) * (old?.width === widthDevPx ? 2 : 1), 16);
      const canvas = new OffscreenCanvas(widthDevPx, height);
      const image = new ImageData(widthDevPx, height);
      strips = {
        canvas,
        ctx: canvas.getContext('2d'),
        image,
        pixels: new Uint32Array(image.data.buffer),
      };
      this.slots[slot] = strips;
    } else if (!keep) {
      strips.pixels.fill(0, 0, count * widthDevPx);
    }
    this.current = strips;
    this.widthDevPx = widthDevPx;
    this.count = count;
    this.uploaded = false;
    return strips.pixels;
  }

  drawStrip(index: number, xPx: number, yPx: number, wPx: number, hPx: number): void {
    const strips = this.current;
    if (strips === undefined || strips.ctx === null) {
      return;
    }
    if (!this.uploaded) {
      strips.ctx.putImageData(strips.image, 0, 0, 0, 0, this.widthDevPx, this.count);
      this.uploaded = true;
    }
    this.ctx.imageSmoothingEnabled = false;
    this.ctx.drawImage(strips.canvas, 0, index, this.widthDevPx, 1, xPx, yPx, wPx, hPx);
  }
}
