import { OpKind, StreamType, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { fitSpanViewport, gpuActivitySpan } from './gpu-span.ts';

function traceWithHostAround(): Trace {
  const trace = new Trace();
  trace.addProcess({ pid: 1, name: 'p' });
  const host = trace.addTrack({ kind: 'host-thread', name: '', pid: 1, tid: 1 });
  const stream = trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: StreamType.NonBlocking,
    priority: 0,
  });
  const op = (track: number, kind: number, startNs: number, endNs: number) =>
    trace.addOp({ startNs, endNs, track, kind, nameId: 0 });
  // 380 ms of host time around 2.26 ms of GPU work (the import).
  op(host, OpKind.ApiCall, 0, 380_000_000);
  op(stream, OpKind.CopyHtoD, 100_000_000, 100_500_000);
  op(stream, OpKind.Kernel, 100_500_000, 102_000_000);
  op(stream, OpKind.Memset, 102_000_000, 102_260_000);
  // A host wait on the stream's track is not GPU work.
  op(stream, OpKind.StreamSync, 102_000_000, 300_000_000);
  return trace;
}

describe('the span of GPU activity', () => {
  it('runs from the first GPU op to the last, leaving host-only time out', () => {
    expect(gpuActivitySpan(traceWithHostAround())).toEqual({
      startNs: 100_000_000,
      endNs: 102_260_000,
    });
  });

  it('is undefined for a trace without GPU work', () => {
    const trace = new Trace();
    trace.addProcess({ pid: 1, name: 'p' });
    const host = trace.addTrack({ kind: 'host-thread', name: '', pid: 1, tid: 1 });
    trace.addOp({ startNs: 0, endNs: 10, track: host, kind: OpKind.ApiCall, nameId: 0 });
    expect(gpuActivitySpan(trace)).toBeUndefined();
  });

  it('fits a window with 2% of air on each side', () => {
    // 2,260,000 ns span: 45,200 ns of air each side.
    expect(fitSpanViewport({ startNs: 100_000_000, endNs: 102_260_000 })).toEqual({
      startNs: 99_954_800,
      endNs: 102_305_200,
    });
  });
});
