import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blendOver, rasterSpan, rgbaToPixel } from './strip-raster.ts';

describe('strip raster', () => {
  it('reorders 0xRRGGBBAA into little-endian ImageData pixels', () => {
    expect(rgbaToPixel(0x11223344).toString(16)).toBe('44332211');
  });

  it('fills whole pixels and covers edge pixels by their fraction', () => {
    const px = new Uint32Array(8);
    const red = rgbaToPixel(0xff0000ff);
    // [1.5, 4.25): pixel 1 half, 2 and 3 full, 4 a quarter.
    rasterSpan(px, 0, 8, 1.5, 4.25, red);
    expect(px[0]).toBe(0);
    expect(px[1]! >>> 24).toBe(128);
    expect(px[2]).toBe(red);
    expect(px[3]).toBe(red);
    expect(px[4]! >>> 24).toBe(64);
    expect(px[5]).toBe(0);
  });

  it('clips to the strip and composites translucent colours over what is there', () => {
    const px = new Uint32Array(4);
    rasterSpan(px, 0, 4, -3, 10, rgbaToPixel(0x0000ffff));
    expect(Array.from(px).every((p) => p === rgbaToPixel(0x0000ffff))).toBe(true);
    const mixed = blendOver(rgbaToPixel(0x0000ffff), rgbaToPixel(0xff000080), 1);
    // Half red over opaque blue: opaque, about half of each.
    expect(mixed >>> 24).toBe(255);
    expect(mixed & 0xff).toBeCloseTo(128, -1);
    expect((mixed >>> 16) & 0xff).toBeCloseTo(127, -1);
  });

  it('paints exactly what Math.round / floor / ceil arithmetic paints, span after span', () => {
    // The reference: the same compositing written with Math calls and Math.max / Math.min clips.
    const refBlend = (dst: number, src: number, coverage: number): number => {
      const sa = ((src >>> 24) / 255) * coverage;
      if (sa <= 0) {
        return dst;
      }
      if (dst >>> 24 === 0) {
        return ((Math.round(sa * 255) << 24) | (src & 0xffffff)) >>> 0;
      }
      const da = (dst >>> 24) / 255;
      const outA = sa + da * (1 - sa);
      const dw = (da * (1 - sa)) / outA;
      const sw = sa / outA;
      const r = Math.round((src & 0xff) * sw + (dst & 0xff) * dw);
      const g = Math.round(((src >>> 8) & 0xff) * sw + ((dst >>> 8) & 0xff) * dw);
      const b = Math.round(((src >>> 16) & 0xff) * sw + ((dst >>> 16) & 0xff) * dw);
      return ((Math.round(outA * 255) << 24) | (b << 16) | (g << 8) | r) >>> 0;
    };
    const refSpan = (px: Uint32Array, widthPx: number, x0: number, x1: number, pixel: number) => {
      const from = Math.max(0, x0);
      const to = Math.min(widthPx, x1);
      if (!(to > from)) {
        return;
      }
      const p0 = Math.floor(from);
      const p1 = Math.ceil(to) - 1;
      if (p0 === p1) {
        px[p0] = refBlend(px[p0]!, pixel, to - from);
        return;
      }
      px[p0] = refBlend(px[p0]!, pixel, p0 + 1 - from);
      px[p1] = refBlend(px[p1]!, pixel, to - p1);
      // Interiors: opaque colours replace, translucent ones composite over what is there.
      for (let p = p0 + 1; p < p1; p++) {
        const dst = px[p]!;
        px[p] = pixel >>> 24 === 0xff || dst >>> 24 === 0 ? pixel : refBlend(dst, pixel, 1);
      }
    };
    const span = fc.record({
      x0: fc.double({ min: -8, max: 40, noNaN: true }),
      widthPx: fc.double({ min: 0, max: 12, noNaN: true }),
      rgb: fc.integer({ min: 0, max: 0xffffff }),
      alpha: fc.constantFrom(0, 1, 107, 179, 200, 255),
    });
    fc.assert(
      fc.property(fc.array(span, { minLength: 1, maxLength: 40 }), (spans) => {
        const fast = new Uint32Array(32);
        const ref = new Uint32Array(32);
        for (const { x0, widthPx, rgb, alpha } of spans) {
          const pixel = rgbaToPixel(((rgb << 8) | alpha) >>> 0);
          rasterSpan(fast, 0, 32, x0, x0 + widthPx, pixel);
          refSpan(ref, 32, x0, x0 + widthPx, pixel);
        }
        expect(Array.from(fast)).toEqual(Array.from(ref));
      }),
      { numRuns: 500 },
    );
  });
});
