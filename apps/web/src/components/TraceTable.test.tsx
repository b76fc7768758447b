import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TraceEntry } from '../api/types.ts';
import type { TestRoot } from '../lib/react-root.test-helper.ts';
import { mountTestRoot } from '../lib/react-root.test-helper.ts';
import { FirstSteps } from '../pages/TracesPage.tsx';
import { appStore } from '../store/index.ts';
import { TraceTable } from './TraceTable.tsx';

let t: TestRoot;

beforeEach(() => {
  t = mountTestRoot();
});

afterEach(() => t.unmount());

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
  warnings: [],
};

describe('trace list', () => {
  it('names a run by its parameters and its backend and profile', () => {
    act(() => t.root.render(<TraceTable entries={[run, { ...run, id: 'r2', target: '' }]} />));
    const rows = [...t.container.querySelectorAll('[data-testid=trace-row]')];
    expect(rows.map((r) => r.querySelectorAll('td')[1]?.textContent)).toEqual([
      'run · sim · c1060',
      'run · sim',
    ]);
    expect(rows[0]?.textContent).toContain('(variant sequential, streams 4, size 16MiB)');
  });

  it('an empty list shows where a first trace comes from, one click each', () => {
    // As the Traces page shows it.
    act(() => t.root.render(<TraceTable entries={[]} empty={<FirstSteps />} />));
    const empty = t.container.querySelector('[data-testid=trace-list-empty]');
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
