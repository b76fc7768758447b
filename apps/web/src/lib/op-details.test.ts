import { FlowKind, OpFlag, OpKind } from '@streamscope/trace';
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
      bytesLabel: '4 KiB',
      bandwidthLabel: '40.96 GB/s',
      sizeKnown: true,
    });
  });

  it('heads a host thread\'s op "Thread", a GPU op "Stream"', () => {
    const trace = sampleTrace();
    const host = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 853 });
    const call = trace.addOp({
      track: host,
      kind: OpKind.ApiCall,
      nameId: trace.strings.intern('cudaLaunchKernel'),
      startNs: 0,
      endNs: 10,
    });
    expect(opDetails(trace, call)?.trackHeading).toBe('Thread');
    expect(opDetails(trace, 0)?.trackHeading).toBe('Stream');
  });

  it('says a copy whose size the source did not record is of unknown size, not 0 GB/s', () => {
    const trace = sampleTrace();
    const copy = trace.addOp({
      track: 0,
      kind: OpKind.CopyDtoD,
      nameId: trace.strings.intern('Memcpy DtoD (Device -> Device)'),
      startNs: 1000,
      endNs: 1100,
      bytes: 0,
      flags: OpFlag.BytesUnknown,
    });
    expect(opDetails(trace, copy)).toMatchObject({
      bytesLabel: 'unknown',
      bandwidthLabel: 'unknown',
      sizeKnown: false,
    });
    // A kernel moves no bytes: nothing to print.
    expect(opDetails(trace, 1)).toMatchObject({ bytesLabel: null, bandwidthLabel: null });
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
