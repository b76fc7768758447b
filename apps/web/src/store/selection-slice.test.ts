import { beforeEach, describe, expect, it } from 'vitest';
import { appStore } from './index.ts';

beforeEach(() => {
  appStore.setState(appStore.getInitialState(), true);
});

describe('a set of ops selected together', () => {
  it('selects its current op and steps through it, wrapping at both ends', () => {
    const s = appStore.getState();
    s.selectOpSet([5, 2, 9], 0, 'finding: idle copy engine');
    expect(appStore.getState()).toMatchObject({ selectedOp: 5, opSetIndex: 0 });
    s.setOpSetIndex(-1);
    expect(appStore.getState()).toMatchObject({ selectedOp: 9, opSetIndex: 2 });
    s.setOpSetIndex(3);
    expect(appStore.getState()).toMatchObject({ selectedOp: 5, opSetIndex: 0 });
  });

  it('is one plain selection below two ops', () => {
    appStore.getState().selectOpSet([7], 0, null);
    expect(appStore.getState()).toMatchObject({ selectedOp: 7, opSet: [], opSetIndex: -1 });
  });

  it('ends on a plain select, on clearing (Escape) and on selecting a range or a gap', () => {
    const s = appStore.getState();
    for (const end of [
      () => s.selectOp(3),
      () => s.selectOp(null),
      () => s.selectRange(1),
      () => s.selectGap(0),
    ]) {
      s.selectOpSet([1, 2], 1, null);
      expect(appStore.getState().opSet).toEqual([1, 2]);
      end();
      expect(appStore.getState()).toMatchObject({ opSet: [], opSetIndex: -1, opSetSource: null });
    }
  });
});

describe('search stepping', () => {
  it('visits nothing until next or previous, then the first or the last match', () => {
    const s = appStore.getState();
    s.setSearchResult('gemm', 3, false, null);
    expect(appStore.getState().searchMatchIndex).toBe(-1);
    s.stepSearch(1);
    expect(appStore.getState().searchMatchIndex).toBe(0);
    s.setSearchResult('gemm', 3, true, null);
    s.stepSearch(-1);
    expect(appStore.getState().searchMatchIndex).toBe(2);
  });

  it('keeps an invalid expression as the error with no matches', () => {
    appStore.getState().setSearchResult('gemm(', 0, true, 'not a regular expression: x');
    expect(appStore.getState()).toMatchObject({
      searchMatchCount: 0,
      searchRegex: true,
      searchError: 'not a regular expression: x',
    });
  });
});

describe('hover', () => {
  it('ends when the view moves under a still pointer (a search jump): its tooltip would be stale', () => {
    const s = appStore.getState();
    s.setViewport(0, 1000);
    s.hoverOp({ op: 4, clientX: 10, clientY: 20 });
    s.hoverGap({ gap: 2, clientX: 10, clientY: 20 });
    s.setViewport(0, 1000);
    expect(appStore.getState().hoveredOp?.op).toBe(4);
    s.setViewport(500, 900);
    expect(appStore.getState()).toMatchObject({
      hoveredOp: null,
      hoveredGap: null,
      hoveredRange: null,
    });
  });
});
