import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAnalysis } from '../api/types.ts';
import type { TestRoot } from '../lib/react-root.test-helper.ts';
import { mountTestRoot } from '../lib/react-root.test-helper.ts';
import type { Side } from './ComparePage.tsx';
import { MetricsTable } from './ComparePage.tsx';

let t: TestRoot;

beforeEach(() => {
  t = mountTestRoot();
});

afterEach(() => t.unmount());

/** A side with `commNs` of NCCL, `overlap` of it beside compute, and a 1 ms median step. */
function side(id: string, commNs: number, overlap: number): Side {
  return {
    id,
    title: id,
    opCount: 10,
    analysis: parseAnalysis({
      metrics: {
        makespanNs: 2_000_000,
        overlap: { all: 0, commCompute: overlap, exposedCommunicationNs: commNs * (1 - overlap) },
        kernelClasses: { computeNs: 1_000_000, communicationNs: commNs, memoryNs: 0 },
      },
      steps: { count: 2, medianStepNs: 1_000_000 },
    }),
  };
}

describe('compare metrics', () => {
  it('shows compute, communication, their overlap and the median step of both runs', () => {
    act(() =>
      t.root.render(<MetricsTable a={side('a', 400_000, 0.25)} b={side('b', 200_000, 0.75)} />),
    );
    const row = (name: string) =>
      [...(t.container.querySelector(`[data-metric="${name}"]`)?.querySelectorAll('td') ?? [])].map(
        (td) => td.textContent,
      );
    expect(row('Compute kernels')).toEqual(['Compute kernels', 'ms', '1.000', '1.000', '±0%']);
    expect(row('Communication')).toEqual(['Communication', 'µs', '400.000', '200.000', '-50.0%']);
    expect(row('Comm/compute overlap')).toEqual([
      'Comm/compute overlap',
      '%',
      '25.0',
      '75.0',
      '+50.0 pt',
    ]);
    expect(row('Exposed communication')).toEqual([
      'Exposed communication',
      'µs',
      '300.000',
      '50.000',
      '-83.3%',
    ]);
    expect(row('Median step')).toEqual(['Median step', 'ms', '1.000', '1.000', '±0%']);
  });

  it('shows a ratio with its reason, not a percentage, against a tiny baseline', () => {
    const makespan = (id: string, makespanNs: number): Side => ({
      id,
      title: id,
      opCount: 1,
      analysis: parseAnalysis({ metrics: { makespanNs, overlap: { commCompute: null } } }),
    });
    // 0.001 ms against 1 ms would be +99,900%.
    act(() =>
      t.root.render(<MetricsTable a={makespan('a', 1_000)} b={makespan('b', 1_000_000)} />),
    );
    const cells = t.container.querySelector('[data-metric="Makespan"]')?.querySelectorAll('td');
    expect(cells?.[4]?.textContent).toBe('1,000× A (as a ratio)');
    expect(cells?.[4]?.getAttribute('title')).toMatch(/A is tiny/);
  });

  it('leaves the communication rows out when neither run communicates', () => {
    const quiet = (id: string): Side => ({
      id,
      title: id,
      opCount: 1,
      analysis: parseAnalysis({ metrics: { makespanNs: 1000, overlap: { commCompute: null } } }),
    });
    act(() => t.root.render(<MetricsTable a={quiet('a')} b={quiet('b')} />));
    expect(t.container.querySelector('[data-metric="Communication"]')).toBeNull();
    expect(t.container.querySelector('[data-metric="Median step"]')).toBeNull();
  });

  it('leaves copy/compute overlap out where no run copied, and says how much slower B is', () => {
    const run = (id: string, makespanNs: number, copyBusyNs: number): Side => ({
      id,
      title: id,
      opCount: 1,
      analysis: parseAnalysis({
        metrics: { makespanNs, overlap: { all: 0, copyBusyNs, commCompute: null } },
      }),
    });
    act(() => t.root.render(<MetricsTable a={run('a', 1000, 0)} b={run('b', 1250, 0)} />));
    expect(t.container.querySelector('[data-metric="Copy/compute overlap"]')).toBeNull();
    // B's makespan is 1.25× A's: "1.25× slower", not the 0.80 of makespan A / makespan B.
    expect(t.container.querySelector('[data-testid=compare-speedup]')?.textContent).toBe(
      'B runs 1.25× slower than A (makespan B / makespan A).',
    );
    // The same time to two decimals is neither faster nor slower.
    act(() => t.root.render(<MetricsTable a={run('a', 1000, 0)} b={run('b', 1003, 0)} />));
    expect(t.container.querySelector('[data-testid=compare-speedup]')?.textContent).toBe(
      'B runs as fast as A (makespans within 0.5% of each other).',
    );
    act(() => t.root.render(<MetricsTable a={run('a', 1000, 0)} b={run('b', 500, 200)} />));
    const cells = [
      ...(t.container
        .querySelector('[data-metric="Copy/compute overlap"]')
        ?.querySelectorAll('td') ?? []),
    ].map((td) => td.textContent);
    expect(cells.slice(2)).toEqual(['—', '0.0', 'n/a (one run has none)']);
  });
});
