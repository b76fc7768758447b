import { StreamType, Trace } from '@streamscope/trace';
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forgetTrace, registerTrace } from '../data/trace-registry.ts';
import type { TestRoot } from '../lib/react-root.test-helper.ts';
import { mountTestRoot } from '../lib/react-root.test-helper.ts';
import { appStore } from '../store/index.ts';
import { StreamPanel } from './StreamPanel.tsx';

let t: TestRoot;

beforeEach(() => {
  appStore.setState(appStore.getInitialState(), true);
  t = mountTestRoot();
});

afterEach(() => {
  t.unmount();
  forgetTrace('t1');
});

/** One GPU stream and one host thread, as a small kineto or nsys import has. */
function streamAndThread(): Trace {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: '' });
  trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: StreamType.NonBlocking,
    priority: 0,
  });
  trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  return trace;
}

describe('stream panel', () => {
  it('counts GPU streams and names host threads apart', () => {
    registerTrace('t1', streamAndThread());
    act(() => appStore.getState().openTrace('t1'));
    act(() => t.root.render(<StreamPanel />));
    const summary = t.container.querySelector('[data-testid=stream-panel-summary]');
    // Two tracks: one stream, one host thread; not "Streams (2)".
    expect(summary?.textContent).toBe('Streams (1) · host threads (1)');
    expect(t.container.querySelectorAll('[data-testid=stream-item]').length).toBe(2);
  });
});
