import type { OpInput } from '@streamscope/trace';
import { FlowKind, OpKind, RangeKind, StreamType, Trace } from '@streamscope/trace';

export interface SyntheticTraceOptions {
  /** Total ops across all tracks. */
  readonly opCount: number;
  readonly devices?: number;
  readonly streamsPerDevice?: number;
  /** Host threads with API-call lanes and nested NVTX ranges. */
  readonly hostThreads?: number;
  /** Mean op duration, ns; gaps average a third of it. */
  readonly meanOpNs?: number;
  /** Seed of the deterministic generator. */
  readonly seed?: number;
}

const gpuKinds = [
  OpKind.Kernel,
  OpKind.Kernel,
  OpKind.Kernel,
  OpKind.CopyHtoD,
  OpKind.CopyDtoH,
  OpKind.Memset,
  OpKind.EventRecord,
  OpKind.StreamWait,
] as const;

/**
 * A deterministic synthetic trace for benchmarks, tests and demos: streams full of kernels,
 * copies, memsets and event waits with idle gaps between them, host threads with API calls and
 * three levels of NVTX ranges, and flows (API → GPU op, record → wait). Ops are spread evenly
 * over the tracks; the tables are reserved up front and trimmed, so memory is what ops cost.
 */
export function syntheticTrace(options: SyntheticTraceOptions): Trace {
  const devices = options.devices ?? 2;
  const streamsPerDevice = options.streamsPerDevice ?? 6;
  const hostThreads = options.hostThreads ?? 2;
  const meanOpNs = options.meanOpNs ?? 5_000;
  let state = (options.seed ?? 1) >>> 0 || 1;
  const random = (): number => {
    // xorshift32: fast, deterministic, good enough for shapes.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
  const trace = new Trace({
    title: `synthetic ${options.opCount} ops`,
    producer: 'streamscope-timeline synthetic',
  });
  for (let d = 0; d < devices; d++) {
    trace.addDevice({ deviceId: d, name: 'Synthetic GPU' });
  }
  trace.addProcess({ pid: 100, name: 'synthetic' });
  const hostTracks: number[] = [];
  for (let h = 0; h < hostThreads; h++) {
    hostTracks.push(trace.addTrack({ kind: 'host-thread', name: '', pid: 100, tid: 1000 + h }));
  }
  const streamTracks: number[] = [];
  for (let d = 0; d < devices; d++) {
    for (let s = 0; s < streamsPerDevice; s++) {
      streamTracks.push(
        trace.addTrack({
          kind: 'gpu-stream',
          name: '',
          pid: 100,
          deviceId: d,
          contextId: 1,
          streamId: 7 + s,
          streamType: s === 0 ? StreamType.LegacyDefault : StreamType.NonBlocking,
          priority: 0,
        }),
      );
    }
  }
  const kernelNames = ['gemm_kernel', 'softmax', 'layernorm_fwd', 'reduce_sum'].map((n) =>
    trace.strings.intern(n),
  );
  const otherNames = new Map<number, number>([
    [OpKind.CopyHtoD, trace.strings.intern('H2D')],
    [OpKind.CopyDtoH, trace.strings.intern('D2H')],
    [OpKind.Memset, trace.strings.intern('memset')],
    [OpKind.EventRecord, trace.strings.intern('cudaEventRecord')],
    [OpKind.StreamWait, trace.strings.intern('cudaStreamWaitEvent')],
  ]);
  const apiNameId = trace.strings.intern('cudaLaunchKernel');
  trace.ops.reserve(options.opCount);
  const op: OpInput = {
    startNs: 0,
    endNs: 0,
    track: 0,
    kind: 0,
    nameId: 0,
    bytes: 0,
    correlationId: 0,
  };
  const allTracks = [...hostTracks, ...streamTracks];
  const perTrack = Math.ceil(options.opCount / allTracks.length);
  let made = 0;
  let lastRecord = -1;
  for (const track of allTracks) {
    const isHost = hostTracks.includes(track);
    let tNs = Math.floor(random() * meanOpNs);
    for (let k = 0; k < perTrack && made < options.opCount; k++) {
      const kind = isHost ? OpKind.ApiCall : gpuKinds[Math.floor(random() * gpuKinds.length)]!;
      const instant = kind === OpKind.EventRecord || kind === OpKind.StreamWait;
      const durNs = instant
        ? 0
        : Math.max(1, Math.round(meanOpNs * (isHost ? 0.3 : 0.2 + random() * 1.6)));
      op.startNs = tNs;
      op.endNs = tNs + durNs;
      op.track = track;
      op.kind = kind;
      op.nameId = isHost
        ? apiNameId
        : kind === OpKind.Kernel
          ? kernelNames[Math.floor(random() * kernelNames.length)]!
          : (otherNames.get(kind) ?? 0);
      op.bytes = kind === OpKind.CopyHtoD || kind === OpKind.CopyDtoH ? 1 << 20 : 0;
      const index = trace.addOp(op);
      if (kind === OpKind.EventRecord) {
        lastRecord = index;
      } else if (kind === OpKind.StreamWait && lastRecord >= 0) {
        trace.flows.append(lastRecord, index, FlowKind.EventRecordToWait);
      }
      made++;
      tNs += durNs + Math.round(random() * meanOpNs * 0.66);
    }
  }
  // API → GPU flows from the first host thread to the first kernels of each stream.
  if (hostTracks.length > 0) {
    const calls = trace.ops.trackOrder(hostTracks[0]!);
    streamTracks.forEach((track, s) => {
      const gpu = trace.ops.trackOrder(track)[0];
      const call = calls[s];
      if (gpu !== undefined && call !== undefined) {
        trace.flows.append(call, gpu, FlowKind.ApiToGpu);
      }
    });
  }
  addRanges(trace, hostTracks);
  trace.ops.trim();
  return trace;
}

/** Three nested levels of NVTX ranges per host thread over the trace's span. */
function addRanges(trace: Trace, hostTracks: readonly number[]): void {
  const spanNs = trace.ops.maxEndNs;
  const names = ['step', 'forward', 'backward', 'layer'].map((n) => trace.strings.intern(n));
  for (const track of hostTracks) {
    const steps = 8;
    for (let s = 0; s < steps; s++) {
      const s0 = (spanNs * s) / steps;
      const s1 = (spanNs * (s + 1)) / steps;
      const range = {
        startNs: s0,
        endNs: s1 - spanNs / 400,
        track,
        nameId: names[0]!,
        domainId: 0,
        depth: 0,
        kind: RangeKind.PushPop,
      };
      trace.ranges.append(range);
      const mid = (s0 + s1) / 2;
      trace.ranges.append({ ...range, startNs: s0, endNs: mid, nameId: names[1]!, depth: 1 });
      trace.ranges.append({
        ...range,
        startNs: mid,
        endNs: s1 - spanNs / 400,
        nameId: names[2]!,
        depth: 1,
      });
      for (let l = 0; l < 4; l++) {
        const l0 = s0 + ((mid - s0) * l) / 4;
        trace.ranges.append({
          ...range,
          startNs: l0,
          endNs: l0 + (mid - s0) / 5,
          nameId: names[3]!,
          depth: 2,
        });
      }
    }
  }
  trace.version++;
}
