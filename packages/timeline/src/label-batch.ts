import type { Rgba } from './colors.ts';
import type { PaintSurface } from './paint-surface.ts';

/**
 * A frame's op and range labels, gathered while the rows are walked and drawn together after
 * them, one text colour at a time: a canvas parses every change of fill style, and labels
 * alternate between dark and light text from one op to the next. Reused across frames.
 */
export class LabelBatch {
  private texts: string[] = [];
  private colors = new Uint32Array(64);
  /** x, y (vertical middle) and the widest the text may be, CSS px, per label. */
  private places = new Float64Array(3 * 64);
  private drawnFlags = new Uint8Array(64);
  private count = 0;

  add(text: string, xPx: number, yPx: number, maxWidthPx: number, color: Rgba): void {
    const i = this.count;
    if (i === this.colors.length) {
      this.grow();
    }
    this.texts[i] = text;
    this.colors[i] = color;
    this.places[3 * i] = xPx;
    this.places[3 * i + 1] = yPx;
    this.places[3 * i + 2] = maxWidthPx;
    this.count = i + 1;
  }

  /** Draws the gathered labels grouped by colour (each keeps its place) and empties the batch. */
  flush(surface: PaintSurface): number {
    const { texts, colors, places, drawnFlags, count } = this;
    drawnFlags.fill(0, 0, count);
    for (let first = 0; first < count; first++) {
      if (drawnFlags[first] === 1) {
        continue;
      }
      const color = colors[first]!;
      for (let i = first; i < count; i++) {
        if (drawnFlags[i] === 0 && colors[i] === color) {
          surface.text(
            texts[i]!,
            places[3 * i]!,
            places[3 * i + 1]!,
            color,
            'label',
            'left',
            places[3 * i + 2],
          );
          drawnFlags[i] = 1;
        }
      }
    }
    this.count = 0;
    return count;
  }

  private grow(): void {
    const n = this.colors.length * 2;
    const colors = new Uint32Array(n);
    colors.set(this.colors);
    this.colors = colors;
    const places = new Float64Array(3 * n);
    places.set(this.places);
    this.places = places;
    this.drawnFlags = new Uint8Array(n);
  }
}
