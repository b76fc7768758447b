import type { Rgba } from './colors.ts';

/**
 * Pixel strips: a row's rectangles rasterized into one line of pixels (device px), then drawn
 * stretched to the row's height with one drawImage. A frame then costs what its pixels cost,
 * however many thin rectangles there are, and edge pixels get partial coverage (anti-aliasing).
 *
 * Pixels are ImageData's RGBA bytes read as little-endian Uint32: 0xAABBGGRR, not premultiplied.
 */
export function rgbaToPixel(color: Rgba): number {
  const r = color >>> 24;
  const g = (color >>> 16) & 0xff;
  const b = (color >>> 8) & 0xff;
  const a = color & 0xff;
  return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** `src` composited over `dst` (both 0xAABBGGRR, straight alpha), with src alpha scaled by `coverage`. */
export function blendOver(dst: number, src: number, coverage: number): number {
  const sa = ((src >>> 24) / 255) * coverage;
  if (sa <= 0) {
    return dst;
  }
  if (dst >>> 24 === 0) {
    // Over nothing (the common case at a rectangle's edge): the source with scaled alpha.
    return ((Math.round(sa * 255) << 24) | (src & 0xffffff)) >>> 0;
  }
  const da = (dst >>> 24) / 255;
  const outA = sa + da * (1 - sa);
  const dw = (da * (1 - sa)) / outA;
  const sw = sa / outA;
  const r = (src & 0xff) * sw + (dst & 0xff) * dw;
  const g = ((src >>> 8) & 0xff) * sw + ((dst >>> 8) & 0xff) * dw;
  const b = ((src >>> 16) & 0xff) * sw + ((dst >>> 16) & 0xff) * dw;
  return (
    ((Math.round(outA * 255) << 24) |
      (Math.round(b) << 16) |
      (Math.round(g) << 8) |
      Math.round(r)) >>>
    0
  );
}

/**
 * Paints [x0, x1) (device px, fractional) of the strip starting at `offset` (`widthPx` long) in
 * `pixel`: edge pixels by their covered fraction, opaque interiors with one fill.
 */
export function rasterSpan(
  pixels: Uint32Array,
  offset: number,
  widthPx: number,
  x0: number,
  x1: number,
  pixel: number,
): void {
  const from = Math.max(0, x0);
  const to = Math.min(widthPx, x1);
  if (!(to > from)) {
    return;
  }
  const p0 = Math.floor(from);
  const p1 = Math.ceil(to) - 1;
  if (p0 === p1) {
    pixels[offset + p0] = blendOver(pixels[offset + p0]!, pixel, to - from);
    return;
  }
  pixels[offset + p0] = blendOver(pixels[offset + p0]!, pixel, p0 + 1 - from);
  pixels[offset + p1] = blendOver(pixels[offset + p1]!, pixel, to - p1);
  if (pixel >>> 24 === 0xff) {
    pixels.fill(pixel, offset + p0 + 1, offset + p1);
    return;
  }
  for (let p = offset + p0 + 1; p < offset + p1; p++) {
    const dst = pixels[p]!;
    pixels[p] = dst >>> 24 === 0 ? pixel : blendOver(dst, pixel, 1);
  }
}
