import { FlowKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { opDetails } from './op-details.ts';
import { sampleTrace } from './sample-trace.test-helper.ts';

describe('opDetails', () => {
  it('reports a copy with its bytes and bandwidth', () => {
    const details = opDetails(sampleTrace(), 0);
    // 4096 bytes in 100 ns = 40.96 GB/s.
    expect(details).toMatchObject({
      name: 'copyA',
      kind: 'copy-htod',
      track: 'Stream 1',
      startNs: 0,
      durNs: 100,
      bytes: 4096,
      bandwidthGBps: 40.96,
    });
  });

  it('lists flows in both directions with the op at the other end', () => {
    const trace = sampleTrace();
    trace.flows.append(0, 4, FlowKind.EventRecordToWait);
    expect(opDetails(trace, 4)?.flows).toEqual([
      { direction: 'from', kind: 'event record → wait', op: 0, name: 'copyA', track: 'Stream 1' },
    ]);
  });

  it('returns null for an op index outside the trace', () => {
    expect(opDetails(sampleTrace(), 99)).toBeNull();
  });
});
