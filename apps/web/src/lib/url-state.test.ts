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

  it('round-trips pinned and hidden tracks and folded headers', () => {
    const route = {
      page: 'trace',
      traceId: 'imp-1',
      view: { startNs: 0, endNs: 5000 },
      pinned: [4, 2],
      hidden: [7],
      collapsed: ['d7.0', 'n3', 'c7.0.1'],
    } as const;
    const hash = hashFromRoute(route);
    expect(hash).toBe('#/trace/imp-1?t=0,5000&pin=4,2&hide=7&fold=d7.0,n3,c7.0.1');
    expect(routeFromHash(hash)).toEqual(route);
  });

  it('drops list entries that are not track indices or group keys', () => {
    expect(routeFromHash('#/trace/x?pin=1,a,-2,1&fold=d1.0,<b>,n2')).toEqual({
      page: 'trace',
      traceId: 'x',
      pinned: [1],
      collapsed: ['d1.0', 'n2'],
    });
  });
});

describe('the optional stream rows in a link', () => {
  it('round-trips lanes=launch,queue and drops unknown names', () => {
    const route = routeFromHash('#/trace/abc?t=0,100&lanes=queue,bogus,launch,queue');
    expect(route).toMatchObject({ page: 'trace', traceId: 'abc', lanes: ['launch', 'queue'] });
    expect(hashFromRoute(route)).toBe('#/trace/abc?t=0,100&lanes=launch,queue');
    expect(routeFromHash('#/trace/abc')).not.toHaveProperty('lanes');
  });
});
