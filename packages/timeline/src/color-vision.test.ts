import { describe, expect, it } from 'vitest';
import type { Deficiency } from './color-vision.ts';
import { ciede2000, composite, perceivedDeltaE, perceivedLab } from './color-vision.ts';
import type { LegendEntry } from './colors.ts';
import { chrome, opLegend } from './colors.ts';
import { gapLegend } from './gaps.ts';

const visions: readonly Deficiency[] = ['normal', 'protanopia', 'deuteranopia', 'tritanopia'];
/** Gap shades are translucent: they are seen over a row's background, plain or striped. */
const backgrounds = [chrome.background, chrome.rowStripe];
/** Ops that only host-thread rows draw, where no gap shade is ever beside them. */
const hostRowOnly = new Set(['api', 'host-work']);

interface Pair {
  readonly a: LegendEntry;
  readonly b: LegendEntry;
}

function pairsWithin(entries: readonly LegendEntry[]): Pair[] {
  const out: Pair[] = [];
  entries.forEach((a, i) => entries.slice(i + 1).forEach((b) => out.push({ a, b })));
  return out;
}

/** The smallest ΔE2000 of a pair over the visions and the backgrounds, with where it is. */
function worst(pair: Pair): { deltaE: number; where: string } {
  let deltaE = Infinity;
  let where = '';
  for (const background of backgrounds) {
    const x = composite(pair.a.color, background);
    const y = composite(pair.b.color, background);
    for (const vision of visions) {
      const d = perceivedDeltaE(x, y, vision);
      if (d < deltaE) {
        deltaE = d;
        where = `${pair.a.label} vs ${pair.b.label} (${vision}): ΔE ${d.toFixed(1)}`;
      }
    }
  }
  return { deltaE, where };
}

function failing(pairs: readonly Pair[]): string[] {
  return pairs
    .map(worst)
    .filter((w) => w.deltaE < 10)
    .map((w) => w.where);
}

describe('CIEDE2000', () => {
  it("matches Sharma, Wu and Dalal's published test pairs", () => {
    // Pairs 1, 3, 7 and 17 of the paper's table 1.
    expect(ciede2000({ l: 50, a: 2.6772, b: -79.7751 }, { l: 50, a: 0, b: -82.7485 })).toBeCloseTo(
      2.0425,
      4,
    );
    expect(ciede2000({ l: 50, a: 2.8361, b: -74.02 }, { l: 50, a: 0, b: -82.7485 })).toBeCloseTo(
      3.4412,
      4,
    );
    expect(ciede2000({ l: 50, a: 0, b: 0 }, { l: 50, a: -1, b: 2 })).toBeCloseTo(2.3669, 4);
    expect(ciede2000({ l: 50, a: 2.5, b: 0 }, { l: 73, a: 25, b: -18 })).toBeCloseTo(27.1492, 4);
  });

  it('puts sRGB white at L* 100 and black at 0, neutral for every vision', () => {
    for (const vision of visions) {
      const white = perceivedLab([255, 255, 255], vision);
      expect(white.l).toBeCloseTo(100, 1);
      expect(Math.abs(white.a) + Math.abs(white.b)).toBeLessThan(1);
      expect(perceivedLab([0, 0, 0], vision).l).toBeCloseTo(0, 6);
    }
  });

  it('collapses red and green for a protanope and a deuteranope, not for a tritanope', () => {
    // Red and a green of about its lightness: far apart normally, much closer without L or M cones.
    const red: [number, number, number] = [200, 60, 40];
    const green: [number, number, number] = [90, 130, 40];
    const normal = perceivedDeltaE(red, green, 'normal');
    expect(perceivedDeltaE(red, green, 'protanopia')).toBeLessThan(normal / 2);
    expect(perceivedDeltaE(red, green, 'deuteranopia')).toBeLessThan(normal / 2);
    expect(perceivedDeltaE(red, green, 'tritanopia')).toBeGreaterThan(normal / 2);
  });
});

describe('the palettes under colour-vision deficiencies', () => {
  it('keeps every two op kinds at least ΔE 10 apart', () => {
    expect(failing(pairsWithin(opLegend))).toEqual([]);
  });

  it('keeps every two gap shades at least ΔE 10 apart over a row', () => {
    expect(failing(pairsWithin(gapLegend))).toEqual([]);
  });

  it('keeps each gap shade ΔE 10 from every op colour a stream row draws beside it', () => {
    const streamOps = opLegend.filter((e) => !hostRowOnly.has(e.id));
    expect(streamOps.length).toBe(10);
    const pairs = gapLegend.flatMap((a) => streamOps.map((b) => ({ a, b })));
    expect(failing(pairs)).toEqual([]);
  });

  it('tells "Host work" from "Gap: unknown" (issue #21)', () => {
    const hostWork = opLegend.find((e) => e.id === 'host-work')!;
    const other = gapLegend.find((e) => e.id === 'other')!;
    // Analysis calls these gaps "unknown"; the legend uses the same word.
    expect(other.label).toBe('Gap: unknown');
    expect(worst({ a: hostWork, b: other }).deltaE).toBeGreaterThanOrEqual(10);
  });

  it('finds the engine-queue vs other pair the old shades failed under deuteranopia', () => {
    // The shades before issue #21: rgba(0,158,115,70) and rgba(0,0,0,45) over white.
    const x = composite(0x009e7346, chrome.background);
    const y = composite(0x0000002d, chrome.background);
    expect(perceivedDeltaE(x, y, 'deuteranopia')).toBeLessThan(3);
  });
});
