import { act } from 'react';
import type { Root } from 'react-dom/client';
import { createRoot } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TraceEntry } from '../api/types.ts';
import { FirstSteps } from '../pages/TracesPage.tsx';
import { appStore } from '../store/index.ts';
import { TraceTable } from './TraceTable.tsx';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean | undefined;
}

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

const run: TraceEntry = {
  id: 'r1',
  source: 'run',
  title: 'NVIDIA blog: overlap data transfers (variant sequential, streams 4, size 16MiB)',
  status: 'finished',
  createdAt: '2026-11-23T10:00:00.000Z',
  opCount: 29,
  spanNs: 8_588_792,
  format: 'streamscope-sim',
  backend: 'sim',
  reason: '',
  target: 'c1060',
};

describe('trace list', () => {
  it('names a run by its parameters and its backend and profile', () => {
    act(() => root.render(<TraceTable entries={[run, { ...run, id: 'r2', target: '' }]} />));
    const rows = [...container.querySelectorAll('[data-testid=trace-row]')];
    expect(rows.map((r) => r.querySelectorAll('td')[1]?.textContent)).toEqual([
      'run · sim · c1060',
      'run · sim',
    ]);
    expect(rows[0]?.textContent).toContain('(variant sequential, streams 4, size 16MiB)');
  });

  it('an empty list shows where a first trace comes from, one click each', () => {
    // As the Traces page shows it.
    act(() => root.render(<TraceTable entries={[]} empty={<FirstSteps />} />));
    const empty = container.querySelector('[data-testid=trace-list-empty]');
    expect(empty?.textContent).toContain('No traces yet');
    const links = [...(empty?.querySelectorAll('button') ?? [])];
    expect(links.map((b) => b.textContent)).toEqual([
      'Run a workload',
      'Import a trace',
      'Open the overlap lessons',
    ]);
    for (const [i, page] of (['run', 'import', 'lessons'] as const).entries()) {
      act(() => links[i]?.click());
      expect(appStore.getState().route).toEqual({ page });
    }
  });
});
