import { describe, expect, it } from 'vitest';
import { fitViewport, panWithinTrace, placeInTrace } from './viewport.ts';

describe('panWithinTrace', () => {
  // A 100 µs trace: fit-all is [-2 µs, 102 µs].
  const spanNs = 100_000;

  it('stops a narrow window at the trace edges, keeping its width', () => {
    expect(panWithinTrace({ startNs: 80_000, endNs: 100_000 }, 50_000, spanNs)).toEqual({
      startNs: 82_000,
      endNs: 102_000,
    });
    expect(panWithinTrace({ startNs: 10_000, endNs: 30_000 }, -50_000, spanNs)).toEqual({
      startNs: -2_000,
      endNs: 18_000,
    });
    // Inside the trace a pan moves by exactly what was asked.
    expect(panWithinTrace({ startNs: 10_000, endNs: 30_000 }, 5_000, spanNs)).toEqual({
      startNs: 15_000,
      endNs: 35_000,
    });
  });

  it('does not move fit-all into empty time', () => {
    const fit = fitViewport(spanNs);
    expect(panWithinTrace(fit, 15_000, spanNs)).toEqual(fit);
    expect(panWithinTrace(fit, -15_000, spanNs)).toEqual(fit);
  });

  it('lets a window a caller put before the trace pan in, but not further out', () => {
    const early = { startNs: -50_000, endNs: -10_000 };
    expect(panWithinTrace(early, -5_000, spanNs)).toEqual(early);
    expect(panWithinTrace(early, 5_000, spanNs)).toEqual({ startNs: -45_000, endNs: -5_000 });
  });

  it('pans freely before the trace has a span', () => {
    expect(panWithinTrace({ startNs: 0, endNs: 10 }, 100, 0)).toEqual({ startNs: 100, endNs: 110 });
  });
});

describe('placeInTrace', () => {
  const spanNs = 100_000;

  it('moves a window that starts before 0 to start at 0, keeping its width', () => {
    expect(placeInTrace({ startNs: -1_500, endNs: 13_500 }, spanNs)).toEqual({
      startNs: 0,
      endNs: 15_000,
    });
  });

  it('moves a window past the end back inside, and leaves one inside alone', () => {
    expect(placeInTrace({ startNs: 95_000, endNs: 105_000 }, spanNs)).toEqual({
      startNs: 90_000,
      endNs: 100_000,
    });
    const inside = { startNs: 10_000, endNs: 20_000 };
    expect(placeInTrace(inside, spanNs)).toBe(inside);
  });

  it('makes a window wider than the trace the trace itself (zoomed out, a match stays inside)', () => {
    expect(placeInTrace(fitViewport(spanNs), spanNs)).toEqual({ startNs: 0, endNs: spanNs });
    expect(placeInTrace({ startNs: -700_000, endNs: 900_000 }, spanNs)).toEqual({
      startNs: 0,
      endNs: spanNs,
    });
  });

  it('places nothing before the trace has a span', () => {
    const early = { startNs: -50, endNs: 50 };
    expect(placeInTrace(early, 0)).toBe(early);
  });
});
