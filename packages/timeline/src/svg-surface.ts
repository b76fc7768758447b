import type { Rgba } from './colors.ts';
import type { FontRole, PaintSurface, TextAlign } from './paint-surface.ts';
import { arrowControl, arrowHead, fontFamily, fontPx } from './paint-surface.ts';

/** The SVG backend: the same calls as the canvas, collected into a standalone SVG document. */
export class SvgSurface implements PaintSurface {
  private readonly parts: string[] = [];
  private clipId = 0;
  private openGroups = 0;
  private readonly geometry = new Float64Array(6);

  constructor(
    readonly widthPx: number,
    readonly heightPx: number,
  ) {}

  fillRect(xPx: number, yPx: number, wPx: number, hPx: number, color: Rgba): void {
    this.parts.push(
      `<rect x="${n(xPx)}" y="${n(yPx)}" width="${n(wPx)}" height="${n(hPx)}"${fill(color)}/>`,
    );
  }

  strokeRect(
    xPx: number,
    yPx: number,
    wPx: number,
    hPx: number,
    color: Rgba,
    lineWidthPx: number,
  ): void {
    this.parts.push(
      `<rect x="${n(xPx)}" y="${n(yPx)}" width="${n(wPx)}" height="${n(hPx)}" fill="none"${stroke(color, lineWidthPx)}/>`,
    );
  }

  line(
    x0Px: number,
    y0Px: number,
    x1Px: number,
    y1Px: number,
    color: Rgba,
    lineWidthPx: number,
  ): void {
    this.parts.push(
      `<line x1="${n(x0Px)}" y1="${n(y0Px)}" x2="${n(x1Px)}" y2="${n(y1Px)}"${stroke(color, lineWidthPx)}/>`,
    );
  }

  arrow(x0Px: number, y0Px: number, x1Px: number, y1Px: number, color: Rgba): void {
    const g = this.geometry;
    arrowControl(x0Px, y0Px, x1Px, y1Px, g);
    arrowHead(g[4]!, g[5]!, x1Px, y1Px, g);
    this.parts.push(
      `<path d="M${n(x0Px)} ${n(y0Px)} Q${n(g[4]!)} ${n(g[5]!)} ${n(x1Px)} ${n(y1Px)}" fill="none"${stroke(color, 1.5)}/>`,
      `<path d="M${n(x1Px)} ${n(y1Px)} L${n(g[0]!)} ${n(g[1]!)} L${n(g[2]!)} ${n(g[3]!)} Z"${fill(color)}/>`,
    );
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
    const anchor = align === 'left' ? 'start' : align === 'right' ? 'end' : 'middle';
    const weight = role === 'header' ? ' font-weight="600"' : '';
    // The role as a class, so a reader of the export can pick out the axis or the row labels.
    const attributes = `class="${role}" font-size="${fontPx[role]}"${weight} text-anchor="${anchor}" dominant-baseline="central"${fill(color)}`;
    if (maxWidthPx === undefined || align !== 'left') {
      this.parts.push(`<text x="${n(xPx)}" y="${n(yPx)}" ${attributes}>${escapeXml(value)}</text>`);
      return;
    }
    // A nested <svg> clips its content: a label never spills past its rectangle, as on canvas.
    const halfPx = fontPx[role];
    this.parts.push(
      `<svg x="${n(xPx)}" y="${n(yPx - halfPx)}" width="${n(maxWidthPx)}" height="${2 * halfPx}">` +
        `<text x="0" y="${halfPx}" ${attributes}>${escapeXml(value)}</text></svg>`,
    );
  }

  pushClip(xPx: number, yPx: number, wPx: number, hPx: number): void {
    const id = `c${this.clipId++}`;
    this.parts.push(
      `<clipPath id="${id}"><rect x="${n(xPx)}" y="${n(yPx)}" width="${n(wPx)}" height="${n(hPx)}"/></clipPath><g clip-path="url(#${id})">`,
    );
    this.openGroups++;
  }

  popClip(): void {
    if (this.openGroups > 0) {
      this.parts.push('</g>');
      this.openGroups--;
    }
  }

  /** The finished document. */
  toString(): string {
    const closing = '</g>'.repeat(this.openGroups);
    return (
      `<svg xmlns="http://www.w3.org/2000/svg" width="${this.widthPx}" height="${this.heightPx}" ` +
      `viewBox="0 0 ${this.widthPx} ${this.heightPx}" font-family='${fontFamily}'>` +
      `${this.parts.join('')}${closing}</svg>`
    );
  }
}

function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function hex(color: Rgba): string {
  return `#${(color >>> 8).toString(16).padStart(6, '0')}`;
}

function opacity(color: Rgba): number {
  return Math.round(((color & 0xff) / 255) * 1000) / 1000;
}

function fill(color: Rgba): string {
  const a = opacity(color);
  return ` fill="${hex(color)}"${a < 1 ? ` fill-opacity="${a}"` : ''}`;
}

function stroke(color: Rgba, widthPx: number): string {
  const a = opacity(color);
  return ` stroke="${hex(color)}" stroke-width="${n(widthPx)}"${a < 1 ? ` stroke-opacity="${a}"` : ''}`;
}

export function escapeXml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
