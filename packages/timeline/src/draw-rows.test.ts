import { describe, expect, it } from 'vitest';
import { gutterLabel, LabelFitter } from './draw-rows.ts';
import type { LayoutRow } from './layout.ts';

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

describe('gutterLabel', () => {
  const row = (label: string, indent: number, groupKey?: string): LayoutRow => ({
    kind: 'track',
    label,
    track: 0,
    indent,
    topPx: 0,
    heightPx: 24,
    depthCount: 0,
    pinned: false,
    ...(groupKey === undefined ? {} : { groupKey, collapsed: false }),
  });

  it('says when a label was cut, so the app can show the whole of it', () => {
    const long = 'NVIDIA H100 80GB HBM3 · Stream 15 (non-blocking, priority -1)';
    const cut = gutterLabel(row(long, 2), 200);
    expect(cut.cut).toBe(true);
    expect(cut.text.endsWith('…')).toBe(true);
    expect(long.startsWith(cut.text.slice(0, -1))).toBe(true);
    // 8 px margin + 2 indents of 12 px.
    expect(cut.leftPx).toBe(32);
    expect(gutterLabel(row('Stream 7', 2), 200)).toMatchObject({ text: 'Stream 7', cut: false });
    // A folding row's label starts after its chevron.
    expect(gutterLabel(row('Stream 7', 2, 'n3'), 200).leftPx).toBe(44);
  });
});
