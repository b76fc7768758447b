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
});
