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
    return ((((sa * 255 + 0.5) | 0) << 24) | (src & 0xffffff)) >>> 0;
  }
  const da = (dst >>> 24) / 255;
  const outA = sa + da * (1 - sa);
  const dw = (da * (1 - sa)) / outA;
  const sw = sa / outA;
  // (v + 0.5) | 0 is Math.round for these non-negative channel values, without a call.
  const r = ((src & 0xff) * sw + (dst & 0xff) * dw + 0.5) | 0;
  const g = (((src >>> 8) & 0xff) * sw + ((dst >>> 8) & 0xff) * dw + 0.5) | 0;
  const b = (((src >>> 16) & 0xff) * sw + ((dst >>> 16) & 0xff) * dw + 0.5) | 0;
  return ((((outA * 255 + 0.5) | 0) << 24) | (b << 16) | (g << 8) | r) >>> 0;
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
  if (!(x1 > x0)) {
    return;
  }
  const from = x0 > 0 ? x0 : 0;
  const to = x1 < widthPx ? x1 : widthPx;
  if (!(to > from)) {
    return;
  }
  // floor and ceil of non-negative values below 2^31, as integer truncation.
  const p0 = from | 0;
  const toFloor = to | 0;
  const p1 = (toFloor === to ? toFloor : toFloor + 1) - 1;
  if (p0 === p1) {
    pixels[offset + p0] = blendOver(pixels[offset + p0]!, pixel, to - from);
    return;
  }
  pixels[offset + p0] = blendOver(pixels[offset + p0]!, pixel, p0 + 1 - from);
  pixels[offset + p1] = blendOver(pixels[offset + p1]!, pixel, to - p1);
  if (pixel >>> 24 === 0xff) {
    // A loop beats TypedArray#fill's call overhead on the 1–3 px interiors of merged buckets.
    if (p1 - p0 > 64) {
      pixels.fill(pixel, offset + p0 + 1, offset + p1);
    } else {
      for (let p = offset + p0 + 1; p < offset + p1; p++) {
        pixels[p] = pixel;
      }
    }
    return;
  }
  for (let p = offset + p0 + 1; p < offset + p1; p++) {
    const dst = pixels[p]!;
    pixels[p] = dst >>> 24 === 0 ? pixel : blendOver(dst, pixel, 1);
  }
}
