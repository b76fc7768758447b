import { OpKind, Trace } from '@streamscope/trace';

// Test-only (not exported from the package): a stream whose host waits overlap its work.

export function stream(trace: Trace, streamId: number, name = ''): number {
  return trace.addTrack({
    kind: 'gpu-stream',
    name,
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId,
    streamType: 'non-blocking',
    priority: 0,
  });
}

/**
 * Stream 7 runs a kernel (10–60 µs) while the host waits on it with cudaStreamSynchronize
 * (30–62 µs), then a stream wait and a copy; nsys' 'Context 1 sync' track holds only an event
 * synchronize.
 */
export function syncTrace(): Trace {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: 'Test GPU' });
  const s7 = stream(trace, 7);
  const ctx = stream(trace, 99, 'Context 1 sync');
  const name = (s: string) => trace.strings.intern(s);
  trace.addOp({
    startNs: 10_000,
    endNs: 60_000,
    track: s7,
    kind: OpKind.Kernel,
    nameId: name('gemm'),
  });
  trace.addOp({
    startNs: 30_000,
    endNs: 62_000,
    track: s7,
    kind: OpKind.StreamSync,
    nameId: name('Stream synchronize'),
  });
  trace.addOp({ startNs: 64_000, endNs: 66_000, track: s7, kind: OpKind.StreamWait, nameId: 0 });
  trace.addOp({
    startNs: 70_000,
    endNs: 90_000,
    track: s7,
    kind: OpKind.CopyDtoH,
    nameId: name('D2H'),
  });
  trace.addOp({
    startNs: 40_000,
    endNs: 50_000,
    track: ctx,
    kind: OpKind.EventSync,
    nameId: name('Event synchronize'),
  });
  return trace;
}
