import { describe, expect, it } from 'vitest';
import { hashFromRoute, routeFromHash } from './url-state.ts';

describe('url state', () => {
  it('round-trips a trace view with its window and selected op', () => {
    const route = {
      page: 'trace',
      traceId: 'run 7/a',
      view: { startNs: 1500, endNs: 98_000 },
      selectedOp: 42,
    } as const;
    const hash = hashFromRoute(route);
    expect(hash).toBe('#/trace/run%207%2Fa?t=1500,98000&op=42');
    expect(routeFromHash(hash)).toEqual(route);
  });

  it('drops a window whose end is not after its start', () => {
    expect(routeFromHash('#/trace/x?t=50,10')).toEqual({ page: 'trace', traceId: 'x' });
  });

  it('reads a comparison of two traces', () => {
    expect(routeFromHash('#/compare?a=one&b=two')).toEqual({
      page: 'compare',
      traceA: 'one',
      traceB: 'two',
    });
  });

  it('falls back to the trace list for unknown or empty hashes', () => {
    expect(routeFromHash('')).toEqual({ page: 'traces' });
    expect(routeFromHash('#/nowhere')).toEqual({ page: 'traces' });
    expect(routeFromHash('#/compare?a=one')).toEqual({ page: 'traces' });
  });

  it('reads the run and import pages', () => {
    expect(routeFromHash('#/run')).toEqual({ page: 'run' });
    expect(routeFromHash(hashFromRoute({ page: 'import' }))).toEqual({ page: 'import' });
  });
});
