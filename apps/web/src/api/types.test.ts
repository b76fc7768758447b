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
        overlap: { all: 0.5 },
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
    expect(analysis.streams[0]?.label).toBe('Stream 7');
    expect(analysis.gapNsByCause).toEqual([
      { cause: 'host-sync', ns: 200 },
      { cause: 'event-wait', ns: 100 },
    ]);
    expect(analysis.gaps[0]?.cause).toBe('event-wait');
    expect(analysis.findings[0]?.opIndices).toEqual([3]);
  });

  it('tolerates a missing analysis body', () => {
    expect(parseAnalysis(null)).toMatchObject({ makespanNs: 0, findings: [], streams: [] });
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
