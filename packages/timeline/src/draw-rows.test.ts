import { describe, expect, it } from 'vitest';
import { LabelFitter } from './draw-rows.ts';

describe('LabelFitter', () => {
  const names = ['', 'gemm_kernel_128x128', 'H2D'];
  const fitter = new LabelFitter((id) => names[id] ?? '');

  it('cuts a long name with an ellipsis to the glyphs that fit', () => {
    // 11 px font → ~6.4 px a glyph; 60 px holds 8 glyphs.
    expect(fitter.fit(1, 60)).toBe('gemm_ke…');
    expect(fitter.fit(1, 500)).toBe('gemm_kernel_128x128');
  });

  it('draws nothing where fewer than four glyphs (or the whole short name) fit', () => {
    expect(fitter.fit(1, 20)).toBe('');
    expect(fitter.fit(2, 24)).toBe('H2D');
    expect(fitter.fit(2, 4)).toBe('');
    expect(fitter.fit(0, 500)).toBe('');
  });

  it('returns the same string object for the same fit (no allocation per frame)', () => {
    expect(fitter.fit(1, 60)).toBe(fitter.fit(1, 61));
  });
});
