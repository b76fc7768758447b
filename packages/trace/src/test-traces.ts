import { OpKind, packMemKinds, MemKind } from './op-kind.ts';
import { Trace } from './trace.ts';

/**
 * A synthetic trace with every column filled: `streams` GPU streams and one host thread,
 * kernels and copies in turn, each with a host API call, flows and ranges. Deterministic.
 * Shared by tests and benchmarks; exported for other packages' benchmarks too.
 */
export function syntheticTrace(opCount: number, streams = 8): Trace {
  const trace = new Trace({ title: `synthetic ${opCount}`, sourceFormat: 'streamscope-sim' });
  trace.addDevice({ deviceId: 0, name: 'Synthetic GPU', smCount: 132, copyEngineCount: 3 });
  trace.addProcess({ pid: 1, name: 'synthetic' });
  const host = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  const streamTracks: number[] = [];
  for (let s = 0; s < streams; s++) {
    streamTracks.push(
      trace.addTrack({
        kind: 'gpu-stream',
        name: '',
        pid: 1,
        deviceId: 0,
        contextId: 1,
        streamId: 13 + s,
        streamType: 'non-blocking',
        priority: 0,
      }),
    );
  }
  const kernelNames = Array.from({ length: 64 }, (_, i) =>
    trace.strings.intern(`kernel_${i}<float, ${i % 4}>`),
  );
  const apiLaunch = trace.strings.intern('cudaLaunchKernel');
  const apiCopy = trace.strings.intern('cudaMemcpyAsync');
  const copyName = trace.strings.intern('Memcpy HtoD (Pinned -> Device)');
  const launch = trace.launches.intern({
    gridX: 1024,
    gridY: 1,
    gridZ: 1,
    blockX: 256,
    blockY: 1,
    blockZ: 1,
    sharedMemBytes: 0,
    registersPerThread: 32,
  });
  const op = {
    startNs: 0,
    endNs: 0,
    track: 0,
    kind: 0,
    nameId: 0,
    bytes: 0,
    memKinds: 0,
    correlationId: 0,
    refId: 0xffffffff,
    flags: 0,
  };
  const gpuOps = Math.ceil(opCount / 2);
  const streamEndNs = new Float64Array(streams);
  let hostNs = 1000;
  let made = 0;
  for (let i = 0; i < gpuOps && made < opCount; i++) {
    const s = i % streams;
    const isCopy = i % 3 === 0;
    const correlationId = i + 1;
    // Host API call: 2-5 µs.
    op.startNs = hostNs;
    op.endNs = hostNs + 2000 + (i % 7) * 500;
    op.track = host;
    op.kind = OpKind.ApiCall;
    op.nameId = isCopy ? apiCopy : apiLaunch;
    op.bytes = 0;
    op.memKinds = 0;
    op.correlationId = correlationId;
    op.refId = 0xffffffff;
    op.flags = 0;
    const apiOp = trace.ops.append(op);
    made++;
    hostNs = op.endNs + 500;
    if (made >= opCount) {
      break;
    }
    // GPU op: queued behind the stream's last op, 5-80 µs.
    const startNs = Math.max(hostNs + 3000, streamEndNs[s]! + 200);
    op.startNs = startNs;
    op.endNs = startNs + 5000 + ((i * 7919) % 75000);
    op.track = streamTracks[s]!;
    op.kind = isCopy ? OpKind.CopyHtoD : OpKind.Kernel;
    op.nameId = isCopy ? copyName : kernelNames[i % kernelNames.length]!;
    op.bytes = isCopy ? 1 << (16 + (i % 8)) : 0;
    op.memKinds = isCopy ? packMemKinds(MemKind.Pinned, MemKind.Device) : 0;
    op.refId = isCopy ? 0xffffffff : launch;
    op.flags = 0;
    const gpuOp = trace.ops.append(op);
    made++;
    streamEndNs[s] = op.endNs;
    trace.flows.append(apiOp, gpuOp, 1);
  }
  return trace;
}

/**
 * `opCount` back-to-back kernels on one stream, each with a size and a correlation id: a plain,
 * compact trace (about 10 bytes an op stored) for memory tests and benchmarks.
 */
export function kernelRunTrace(opCount: number): Trace {
  const trace = new Trace({ title: 'stored', sourceFormat: 'streamscope-sim' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  trace.addProcess({ pid: 7, name: 'app' });
  trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 7,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: 'blocking',
    priority: 0,
  });
  const nameId = trace.strings.intern('k');
  for (let i = 0; i < opCount; i++) {
    trace.addOp({
      startNs: i * 100,
      endNs: i * 100 + 50,
      track: 0,
      kind: OpKind.Kernel,
      nameId,
      bytes: (i * 7919) % 1_000_003,
      correlationId: i,
    });
  }
  return trace;
}
