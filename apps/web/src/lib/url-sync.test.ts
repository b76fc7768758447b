import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appStore } from '../store/index.ts';
import { startUrlSync } from './url-sync.ts';

let stop: () => void = () => undefined;

/** The user edits the hash (or goes back/forward): the browser changes it and fires hashchange. */
function changeHash(hash: string): void {
  history.replaceState(null, '', hash);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

beforeEach(() => {
  appStore.setState(appStore.getInitialState(), true);
  history.replaceState(null, '', '#/trace/abc?t=0,1000');
  stop = startUrlSync();
  appStore.setState({ traceId: 'abc' });
  appStore.getState().setViewport(0, 1000);
});

afterEach(() => stop());

describe('a hash change on the open trace', () => {
  it('moves the view and the selection to the URL', () => {
    changeHash('#/trace/abc?t=2500,7500&op=12');
    const state = appStore.getState();
    expect([state.viewStartNs, state.viewEndNs]).toEqual([2500, 7500]);
    expect(state.selectedOp).toBe(12);
  });

  it('clears the selection and applies pinned, hidden and folded rows the URL names', () => {
    appStore.getState().selectOp(4);
    changeHash('#/trace/abc?t=10,20&pin=3&hide=1,2&fold=d1.0');
    const state = appStore.getState();
    expect(state.selectedOp).toBeNull();
    expect([state.pinnedTracks, state.hiddenTracks, state.collapsedGroups]).toEqual([
      [3],
      [1, 2],
      ['d1.0'],
    ]);
  });

  it('leaves the store alone for another trace (the trace page opens that one)', () => {
    changeHash('#/trace/other?t=2500,7500&op=12');
    const state = appStore.getState();
    expect([state.viewStartNs, state.viewEndNs, state.selectedOp]).toEqual([0, 1000, null]);
    expect(state.route).toMatchObject({ page: 'trace', traceId: 'other' });
  });
});
