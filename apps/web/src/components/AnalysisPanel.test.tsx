import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAnalysis } from '../api/types.ts';
import { forgetTrace, setAnalysis, setAnalysisFailure } from '../data/trace-registry.ts';
import type { TestRoot } from '../lib/react-root.test-helper.ts';
import { mountTestRoot } from '../lib/react-root.test-helper.ts';
import { appStore } from '../store/index.ts';
import { AnalysisPanel } from './AnalysisPanel.tsx';

let t: TestRoot;

beforeEach(() => {
  appStore.setState(appStore.getInitialState(), true);
  t = mountTestRoot();
});

afterEach(() => {
  t.unmount();
  forgetTrace('t1');
});

const step = (n: number, startNs: number, stepNs: number) => ({
  name: `ProfilerStep#${n}`,
  startNs,
  stepNs,
  gpuBusyNs: stepNs / 2,
  communicationNs: 2_000,
  exposedCommunicationNs: 1_000,
  idleNs: stepNs / 2,
});

/** What GET /api/traces/:id/analysis returns for a training run with NCCL and two steps. */
const body = {
  metrics: {
    makespanNs: 1_000_000,
    deviceUtilization: 0.5,
    overlap: { all: 0, commCompute: 0.25, exposedCommunicationNs: 30_000 },
    kernelClasses: { computeNs: 400_000, communicationNs: 40_000, memoryNs: 0 },
    launchQueueFullNs: 0,
  },
  steps: {
    pattern: '^ProfilerStep#\\d+$',
    count: 2,
    meanStepNs: 450_000,
    medianStepNs: 450_000,
    maxStepNs: 500_000,
    slowest: [step(1, 400_000, 500_000), step(0, 0, 400_000)],
  },
  findings: [],
};

function show(analysis: unknown): void {
  setAnalysis('t1', parseAnalysis(analysis));
  act(() => appStore.getState().openTrace('t1'));
  act(() => t.root.render(<AnalysisPanel />));
}

describe('analysis summary panel', () => {
  it('says why there is no analysis, in the panel, when the server could not make it', () => {
    setAnalysisFailure('t1', 'the analysis of this trace needs about 30.5 GB of memory');
    act(() => appStore.getState().openTrace('t1'));
    act(() => t.root.render(<AnalysisPanel />));
    expect(t.container.querySelector('[data-testid="analysis-failed"]')?.textContent).toBe(
      'No analysis: the analysis of this trace needs about 30.5 GB of memory',
    );
    expect(t.container.textContent).not.toContain('Analysing');
    // An analysis that arrives later takes its place.
    show(body);
    expect(t.container.querySelector('[data-testid="analysis-failed"]')).toBeNull();
  });

  it('shows kernel classes and communication/compute overlap', () => {
    show(body);
    const text = (id: string) =>
      t.container.querySelector(`[data-testid=${id}]`)?.textContent ?? null;
    expect(text('metric-kernel-classes')).toBe('compute 400 µs · communication 40 µs');
    expect(text('metric-comm-overlap')).toBe('25.0% (exposed 30 µs)');
    expect(text('metric-queue-full')).toBeNull();
  });

  it('shows a dash, not 0.0%, for copy/compute overlap when the run has no copies', () => {
    show(body);
    const text = (id: string) =>
      t.container.querySelector(`[data-testid=${id}]`)?.textContent ?? null;
    expect(text('metric-overlap')).toBe('—');
    show({
      ...body,
      metrics: { ...body.metrics, overlap: { ...body.metrics.overlap, all: 0, copyBusyNs: 5_000 } },
    });
    expect(text('metric-overlap')).toBe('0.0%');
  });

  it('lists the slowest steps and zooms to one on click', () => {
    show(body);
    expect(t.container.querySelector('[data-testid=steps-summary]')?.textContent).toBe(
      '2 steps: median 450 µs, mean 450 µs, max 500 µs',
    );
    const rows = [...t.container.querySelectorAll('[data-testid=step-row]')];
    expect(rows.map((r) => r.querySelector('td')?.textContent)).toEqual([
      'ProfilerStep#1',
      'ProfilerStep#0',
    ]);
    // The figures share the unit the caption names (the slowest step is 500 µs): the exposed
    // communication of 1,000 ns reads 1.0.
    expect(t.container.querySelector('[data-testid=steps-caption]')?.textContent).toBe(
      'Slowest first, in µs',
    );
    expect(rows[0]?.querySelectorAll('td')[3]?.textContent).toBe('1.0');
    act(() => rows[0]?.querySelector('button')?.click());
    const { viewStartNs, viewEndNs } = appStore.getState();
    // The step [400, 900] µs lies inside the window it zoomed to.
    expect(viewStartNs).toBeLessThanOrEqual(400_000);
    expect(viewEndNs).toBeGreaterThanOrEqual(900_000);
  });

  it("gives every figure of a step, each in its own unit, in its row's tooltip", () => {
    show({
      ...body,
      steps: {
        ...body.steps,
        count: 3,
        slowest: [{ ...step(1, 400_000, 500_000), rank: 1 }, step(0, 0, 400_000)],
      },
    });
    expect(t.container.querySelector('[data-testid=steps-caption]')?.textContent).toBe(
      'The 2 slowest, in µs',
    );
    const rows = [...t.container.querySelectorAll('[data-testid=step-row]')];
    expect(rows[0]?.querySelector('td')?.textContent).toBe('ProfilerStep#1 · rank 1');
    expect(rows[0]?.getAttribute('title')).toBe(
      'ProfilerStep#1 · rank 1: 500 µs from 400 µs; GPU busy 250 µs, communication 2 µs ' +
        '(1 µs exposed, not under compute), idle 250 µs',
    );
  });

  it("says a pipeline stage's sends and receives apart from its collectives", () => {
    const pipelineStep = {
      ...step(1, 0, 500_000),
      rank: 0,
      communicationNs: 0,
      exposedCommunicationNs: 0,
      pointToPointNs: 120_000,
    };
    show({ ...body, steps: { ...body.steps, count: 1, slowest: [pipelineStep] } });
    const row = t.container.querySelector('[data-testid=step-row]');
    expect(row?.querySelectorAll('td')[3]?.textContent).toBe('—');
    expect(row?.getAttribute('title')).toBe(
      'ProfilerStep#1 · rank 0: 500 µs from 0 ns; GPU busy 250 µs, no collectives, pipeline ' +
        'send/recv 120 µs (waiting for other stages), idle 250 µs',
    );
  });

  it('marks a step whose time is a host/GPU clock mismatch, and says what the mark means', () => {
    show(body);
    expect(t.container.querySelector('[data-testid=step-skewed]')).toBeNull();
    expect(t.container.querySelector('[data-testid=steps-skewed-note]')).toBeNull();
    show({ ...body, steps: { ...body.steps, skewedSteps: ['ProfilerStep#1'] } });
    const rows = [...t.container.querySelectorAll('[data-testid=step-row]')];
    expect(rows[0]?.querySelector('[data-testid=step-skewed]')?.textContent).toBe(' *');
    expect(rows[1]?.querySelector('[data-testid=step-skewed]')).toBeNull();
    expect(t.container.querySelector('[data-testid=steps-skewed-note]')?.textContent).toMatch(
      /clocks disagree.*not work/,
    );
  });

  it('leaves communication and steps out for a trace without them', () => {
    show({ metrics: { overlap: { all: 0.5, commCompute: null } } });
    expect(t.container.querySelector('[data-testid=metric-comm-overlap]')).toBeNull();
    expect(t.container.querySelector('[data-testid=steps]')).toBeNull();
  });

  it('says what each gap count counts: per stream, or the GPU with no stream busy, of any length', () => {
    show({
      ...body,
      gaps: {
        stream: { count: 341, totalNs: 45_270_000 },
        device: { count: 341, totalNs: 23_580_000 },
      },
    });
    const terms = [...t.container.querySelectorAll('dt')].map((dt) => dt.textContent);
    expect(terms).toContain('Idle gaps on streams (per stream)');
    expect(terms).toContain('GPU idle gaps (no stream busy)');
    expect(t.container.querySelector('[data-testid=metric-stream-gaps]')?.textContent).toBe(
      '341 of any length (45.27 ms)',
    );
    expect(t.container.querySelector('[data-testid=metric-gpu-gaps]')?.textContent).toBe(
      '341 of any length (23.58 ms)',
    );
  });

  it('says how many ops a finding points at in all where the analysis listed only some', () => {
    const finding = (ruleId: string, opIndices: number[], opCount?: number) => ({
      ruleId,
      severity: 'warning',
      title: ruleId,
      message: '',
      opIndices,
      ...(opCount === undefined ? {} : { opCount }),
      estimatedSavingNs: 1_000,
    });
    const fifty = Array.from({ length: 50 }, (_, i) => i);
    show({
      ...body,
      findings: [
        finding('gpu-gaps', fifty, 1176),
        finding('device-sync', [3, 4], 2),
        finding('sync-copy', [7]),
      ],
    });
    const buttons = [...t.container.querySelectorAll('[data-testid=finding-show]')].map(
      (b) => b.textContent,
    );
    expect(buttons).toEqual(['show (50 of 1,176 ops)', 'show (2 ops)', 'show (1 op)']);
  });
});
