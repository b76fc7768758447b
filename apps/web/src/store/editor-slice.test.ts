import { beforeEach, describe, expect, it } from 'vitest';
import { appStore } from './index.ts';

beforeEach(() => {
  appStore.setState(appStore.getInitialState(), true);
});

describe('the workload editor slice', () => {
  it('loads a workload as indented JSON, shows the editor and remembers where it came from', () => {
    appStore.getState().loadWorkloadIntoEditor({ name: 'w', streams: [] }, 'preset w', {
      backend: 'sim',
      target: 'c2050',
    });
    const state = appStore.getState();
    expect(state.runMode).toBe('workload');
    expect(state.workloadText).toBe('{\n  "name": "w",\n  "streams": []\n}\n');
    expect(state.workloadOrigin).toBe('preset w');
    expect(state.suggestedTarget).toEqual({ backend: 'sim', target: 'c2050' });
  });

  it('keeps the origin while the text is edited, and drops an old suggestion on the next load', () => {
    const state = appStore.getState();
    state.loadWorkloadIntoEditor({ name: 'a' }, 'lesson a', { backend: 'sim', target: 'k20c' });
    state.setWorkloadText('{"name": "b"}');
    expect(appStore.getState()).toMatchObject({
      workloadText: '{"name": "b"}',
      workloadOrigin: 'lesson a',
    });
    state.loadWorkloadIntoEditor({ name: 'c' }, 'preset c');
    expect(appStore.getState().suggestedTarget).toBeNull();
  });
});
