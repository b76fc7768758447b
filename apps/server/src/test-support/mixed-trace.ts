import type { Trace } from '@streamscope/trace';
import {
  MemKind,
  OpFlag,
  OpKind,
  RangeKind,
  StreamType,
  Trace as TraceClass,
  packMemKinds,
} from '@streamscope/trace';

/**
 * A host thread (track 0) with API calls and nested NVTX ranges, and two streams: track 1 runs
 * kernels with a launch config every 1000 ns (a 50 000 ns one every 997th), track 2 copies that
 * arrive out of start order. Every field an op has is set somewhere.
 */
export function mixedTrace(n: number): Trace {
  const trace = new TraceClass({ title: 'mixed', sourceFormat: 'streamscope-sim' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  trace.addProcess({ pid: 1, name: 'app' });
  trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  for (const streamId of [7, 8]) {
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId,
      streamType: StreamType.NonBlocking,
      priority: 0,
    });
  }
  const launch = trace.launches.intern({
    gridX: 64,
    gridY: 1,
    gridZ: 1,
    blockX: 128,
    blockY: 1,
    blockZ: 1,
    sharedMemBytes: 0,
    registersPerThread: 32,
  });
  const names = ['gemm', 'softmax', 'h2d', 'cudaLaunchKernel', 'step', 'forward'].map((s) =>
    trace.strings.intern(s),
  );
  const domain = trace.strings.intern('app-domain');
  for (let i = 0; i < n; i++) {
    const long = i % 997 === 0;
    trace.addOp({
      startNs: i * 1000 + 3000,
      endNs: i * 1000 + 3000 + (long ? 50_000 : 400 + (i % 5) * 10),
      track: 1,
      kind: OpKind.Kernel,
      nameId: names[i % 2]!,
      correlationId: 10 * i + 1,
      refId: launch,
      flags: i % 11 === 0 ? OpFlag.Sync : 0,
    });
    trace.addOp({
      startNs: i * 1000,
      endNs: i * 1000 + 2000,
      track: 0,
      kind: OpKind.ApiCall,
      nameId: names[3]!,
      correlationId: 10 * i + 1,
    });
    if (i % 3 === 0) {
      // Copies come late and out of order: each pair's second starts first.
      const startNs = (i % 6 === 0 ? i + 3 : i - 3) * 1000 + 500;
      trace.addOp({
        startNs,
        endNs: startNs + 700,
        track: 2,
        kind: OpKind.CopyHtoD,
        nameId: names[2]!,
        bytes: 2 ** 33 + i,
        memKinds: packMemKinds(MemKind.Pinned, MemKind.Device),
        correlationId: 10 * i + 5,
      });
    }
    if (i % 50 === 0) {
      trace.ranges.append({
        startNs: i * 1000,
        endNs: i * 1000 + 40_000,
        track: 0,
        nameId: names[4]!,
        domainId: domain,
        depth: 0,
        kind: RangeKind.PushPop,
      });
      trace.ranges.append({
        startNs: i * 1000 + 100,
        endNs: i * 1000 + 20_000,
        track: 0,
        nameId: names[5]!,
        domainId: 0,
        depth: 1,
        kind: RangeKind.PushPop,
      });
    }
  }
  return trace;
}
