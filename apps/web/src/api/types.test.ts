import { describe, expect, it } from 'vitest';
import { parseAnalysis, parseTraceEntry } from './types.ts';

describe('API parsing', () => {
  it('reads the analysis figures the trace view shows', () => {
    const analysis = parseAnalysis({
      metrics: {
        makespanNs: 1000,
        gpuOpCount: 4,
        deviceBusyNs: 800,
        deviceUtilization: 0.8,
        overlap: { all: 0.5, commCompute: 0.25, exposedCommunicationNs: 30 },
        kernelClasses: { computeNs: 500, communicationNs: 40, memoryNs: 10 },
        launchQueueFullNs: 7,
        streams: [{ track: 1, label: 'Stream 7', busyNs: 600, utilization: 0.6 }],
      },
      gaps: {
        stream: {
          count: 2,
          totalNs: 300,
          nsByCause: { 'event-wait': 100, 'host-sync': 200, unknown: 0 },
          listed: [{ track: 1, fromNs: 10, toNs: 110, cause: 'event-wait', detail: 'waits on e1' }],
        },
      },
      steps: {
        pattern: '^ProfilerStep#\\d+$',
        count: 2,
        meanStepNs: 450,
        medianStepNs: 450,
        maxStepNs: 500,
        slowest: [
          {
            name: 'ProfilerStep#1',
            startNs: 400,
            stepNs: 500,
            gpuBusyNs: 300,
            communicationNs: 40,
            exposedCommunicationNs: 30,
            idleNs: 200,
          },
          {
            name: 'ProfilerStep#2',
            rank: 1,
            startNs: 900,
            stepNs: 400,
            gpuBusyNs: 300,
            communicationNs: 0,
            exposedCommunicationNs: 0,
            idleNs: 100,
          },
        ],
      },
      findings: [
        {
          ruleId: 'pageable-copy',
          severity: 'warning',
          title: 'Pageable copy',
          message: 'm',
          opIndices: [3],
          estimatedSavingNs: 50,
        },
      ],
    });
    expect(analysis.copyComputeOverlap).toBe(0.5);
    expect(analysis).toMatchObject({
      computeNs: 500,
      communicationNs: 40,
      memoryKernelNs: 10,
      commComputeOverlap: 0.25,
      exposedCommunicationNs: 30,
      launchQueueFullNs: 7,
    });
    expect(analysis.steps).toMatchObject({ count: 2, medianStepNs: 450 });
    expect(analysis.steps.slowest[0]).toMatchObject({ name: 'ProfilerStep#1', idleNs: 200 });
    // A merged trace's step keeps its rank; a one-rank trace's has none.
    expect(analysis.steps.slowest[1]).toMatchObject({ name: 'ProfilerStep#2', rank: 1 });
    expect('rank' in analysis.steps.slowest[0]!).toBe(false);
    expect(analysis.streams[0]?.label).toBe('Stream 7');
    expect(analysis.gapNsByCause).toEqual([
      { cause: 'host-sync', ns: 200 },
      { cause: 'event-wait', ns: 100 },
    ]);
    expect(analysis.gaps[0]?.cause).toBe('event-wait');
    expect(analysis.findings[0]?.opIndices).toEqual([3]);
  });

  it('tolerates a missing analysis body', () => {
    expect(parseAnalysis(null)).toMatchObject({
      makespanNs: 0,
      findings: [],
      streams: [],
      commComputeOverlap: null,
      steps: { count: 0, slowest: [] },
    });
  });

  it('fills absent optional trace-entry fields with empty values', () => {
    expect(parseTraceEntry({ id: 'a', source: 'import', status: 'imported' })).toMatchObject({
      id: 'a',
      title: 'a',
      source: 'import',
      backend: '',
      reason: '',
    });
  });
});
