import process from 'node:process';
import { analyzeTrace, summarizeRun } from '@streamscope/analysis';
import type { StreamType } from '@streamscope/trace';
import {
  FlowKind,
  MemKind,
  OpFlag,
  OpKind,
  RangeKind,
  Trace,
  packMemKinds,
} from '@streamscope/trace';
import type { Report } from './report.ts';
import { medianMs } from './report.ts';

const streamCount = 16;
const totalOps = 1_000_000;

/** Rounds per profiler step on each host thread, in the `withSteps` trace. */
const roundsPerStep = 50;

/**
 * A synthetic million-op trace that exercises every analysis path: 16 streams (one legacy
 * default, some blocking), each with its own host thread issuing H2D → kernel → D2H rounds
 * through API calls; event waits across streams, pageable and synchronous copies, stream
 * synchronizes and host work, with µs-scale gaps. Ops (API calls included) total one million.
 * `withSteps` adds what a PyTorch profile has besides: a CPU-op range around each round, a
 * ProfilerStep#N range every 50 rounds per thread (about 140,000 ranges in all) and NCCL
 * all-reduce kernels among the kernels (communication, overlap and per-step paths).
 */
export function syntheticTrace(withSteps = false): Trace {
  const trace = new Trace({ title: 'synthetic million-op trace' });
  trace.addDevice({ deviceId: 0, name: 'bench gpu', copyEngineCount: 2 });
  const names = {
    kernel: [
      'gemm',
      'relu',
      'softmax',
      withSteps ? 'ncclDevKernel_AllReduce_Sum_f32_RING_LL' : 'reduce',
    ].map((n) => trace.strings.intern(n)),
    cpuOp: trace.strings.intern('aten::linear'),
    cpuOpDomain: trace.strings.intern('cpu_op'),
    h2d: trace.strings.intern('[CUDA memcpy Host-to-Device]'),
    d2h: trace.strings.intern('[CUDA memcpy Device-to-Host]'),
    launch: trace.strings.intern('cudaLaunchKernel'),
    copyAsync: trace.strings.intern('cudaMemcpyAsync'),
    copySync: trace.strings.intern('cudaMemcpy'),
    sync: trace.strings.intern('cudaStreamSynchronize'),
    work: trace.strings.intern('host work'),
    record: trace.strings.intern('cudaEventRecord'),
    wait: trace.strings.intern('cudaStreamWaitEvent'),
  };
  const hosts: number[] = [];
  const streams: number[] = [];
  for (let s = 0; s < streamCount; s++) {
    hosts.push(trace.addTrack({ kind: 'host-thread', name: '', pid: 1, tid: 100 + s }));
    const type: StreamType = s === 0 ? 'legacy-default' : s % 4 === 0 ? 'blocking' : 'non-blocking';
    streams.push(
      trace.addTrack({
        kind: 'gpu-stream',
        name: '',
        pid: 1,
        deviceId: 0,
        contextId: 1,
        streamId: s === 0 ? 7 : 13 + s,
        streamType: type,
        priority: 0,
      }),
    );
  }
  const op = {
    startNs: 0,
    endNs: 0,
    track: 0,
    kind: 0,
    nameId: 0,
    bytes: 0,
    memKinds: 0,
    flags: 0,
  };
  const add = (
    track: number,
    kind: number,
    startNs: number,
    endNs: number,
    nameId: number,
    bytes = 0,
    memKinds = 0,
    flags = 0,
  ): number => {
    op.track = track;
    op.kind = kind;
    op.startNs = startNs;
    op.endNs = endNs;
    op.nameId = nameId;
    op.bytes = bytes;
    op.memKinds = memKinds;
    op.flags = flags;
    return trace.ops.append(op);
  };
  const gpuCursor = new Float64Array(streamCount);
  const hostCursor = new Float64Array(streamCount);
  const lastRecord = new Int32Array(streamCount).fill(-1);
  const rounds = new Int32Array(streamCount);
  const stepFromNs = new Float64Array(streamCount);
  const range = (s: number, nameId: number, startNs: number, endNs: number, domainId: number) =>
    trace.ranges.append({
      startNs,
      endNs,
      track: hosts[s]!,
      nameId,
      domainId,
      depth: 0,
      kind: RangeKind.PushPop,
    });
  let rng = 12345;
  const random = (): number => {
    rng = (rng * 1103515245 + 12345) & 0x7fffffff;
    return rng / 0x7fffffff;
  };
  // One GPU op and the API call that issued it: two ops.
  const issue = (
    s: number,
    kind: number,
    durNs: number,
    nameId: number,
    apiName: number,
    bytes = 0,
    memKinds = 0,
    flags = 0,
  ): void => {
    const host = hosts[s]!;
    const apiStart = hostCursor[s]!;
    const apiEnd = apiStart + 2_000 + random() * 3_000;
    const api = add(host, OpKind.ApiCall, apiStart, apiEnd, apiName);
    const start =
      Math.max(gpuCursor[s]!, apiEnd + 3_000) + (random() < 0.1 ? random() * 40_000 : 0);
    const gpu = add(streams[s]!, kind, start, start + durNs, nameId, bytes, memKinds, flags);
    trace.flows.append(api, gpu, FlowKind.ApiToGpu);
    gpuCursor[s] = start + durNs;
    hostCursor[s] = apiEnd + 500;
  };
  while (trace.ops.count < totalOps - 64) {
    for (let s = 0; s < streamCount && trace.ops.count < totalOps - 64; s++) {
      const roundFromNs = hostCursor[s]!;
      const bytes = (1 + Math.floor(random() * 16)) << 20;
      const pageable = random() < 0.05;
      const h2dKinds = packMemKinds(pageable ? MemKind.Pageable : MemKind.Pinned, MemKind.Device);
      issue(s, OpKind.CopyHtoD, bytes / 20, names.h2d, names.copyAsync, bytes, h2dKinds);
      // Now and then wait on another stream's last record before the kernel.
      const other = (s + 1) % streamCount;
      if (random() < 0.2 && lastRecord[other]! >= 0) {
        const wait = add(streams[s]!, OpKind.StreamWait, gpuCursor[s]!, gpuCursor[s]!, names.wait);
        trace.flows.append(lastRecord[other]!, wait, FlowKind.EventRecordToWait);
      }
      const kernelNs = 10_000 + random() * 90_000;
      const k = Math.floor(random() * 4);
      issue(s, OpKind.Kernel, kernelNs, names.kernel[k]!, names.launch);
      lastRecord[s] = add(
        streams[s]!,
        OpKind.EventRecord,
        gpuCursor[s]!,
        gpuCursor[s]!,
        names.record,
      );
      const sync = random() < 0.05;
      const d2hKinds = packMemKinds(MemKind.Device, MemKind.Pinned);
      const d2hApi = sync ? names.copySync : names.copyAsync;
      issue(
        s,
        OpKind.CopyDtoH,
        bytes / 20,
        names.d2h,
        d2hApi,
        bytes,
        d2hKinds,
        sync ? OpFlag.Sync : 0,
      );
      if (sync) {
        hostCursor[s] = Math.max(hostCursor[s]!, gpuCursor[s]! + 1_000);
      }
      if (withSteps) {
        range(s, names.cpuOp, roundFromNs, hostCursor[s]!, names.cpuOpDomain);
        if (++rounds[s]! % roundsPerStep === 0) {
          const step = trace.strings.intern(`ProfilerStep#${rounds[s]! / roundsPerStep}`);
          range(s, step, stepFromNs[s]!, hostCursor[s]!, 0);
          stepFromNs[s] = hostCursor[s]!;
        }
      }
      const hostDraw = random();
      if (hostDraw < 0.05) {
        const from = hostCursor[s]!;
        hostCursor[s] = Math.max(from + 1_000, gpuCursor[s]! + 2_000);
        add(hosts[s]!, OpKind.ApiCall, from, hostCursor[s]!, names.sync);
      } else if (hostDraw < 0.1) {
        const from = hostCursor[s]!;
        hostCursor[s] = from + random() * 200_000;
        add(hosts[s]!, OpKind.HostWork, from, hostCursor[s]!, names.work);
      }
    }
  }
  return trace;
}

export async function run(report: Report): Promise<void> {
  const trace = syntheticTrace();
  const millions = trace.ops.count / 1e6;
  let findings = 0;
  const analyzeMs = medianMs(() => {
    findings = analyzeTrace(trace).findings.length;
  }, 5);
  const summaryMs = medianMs(() => {
    summarizeRun(trace);
  }, 5);
  // CPU time of one more run: on a shared, loaded machine wall time also counts waiting.
  const cpuBefore = process.cpuUsage();
  analyzeTrace(trace);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  report('analysis.s_per_million_ops', analyzeMs / 1000 / millions, 's');
  report('analysis.cpu_s_per_million_ops', cpuMs / 1000 / millions, 's');
  report('analysis.summary_s_per_million_ops', summaryMs / 1000 / millions, 's');
  report('analysis.bench_trace_ops', trace.ops.count, 'ops');
  report('analysis.bench_findings', findings, 'findings');
  const stepped = syntheticTrace(true);
  let steps = 0;
  const steppedMs = medianMs(() => {
    steps = analyzeTrace(stepped).steps.count;
  }, 5);
  report(
    'analysis.s_per_million_ops_with_steps',
    steppedMs / 1000 / (stepped.ops.count / 1e6),
    's',
  );
  const steppedCpuBefore = process.cpuUsage();
  analyzeTrace(stepped);
  const steppedCpu = process.cpuUsage(steppedCpuBefore);
  report(
    'analysis.cpu_s_per_million_ops_with_steps',
    (steppedCpu.user + steppedCpu.system) / 1e6 / (stepped.ops.count / 1e6),
    's',
  );
  report('analysis.bench_ranges', stepped.ranges.count, 'ranges');
  report('analysis.bench_steps', steps, 'steps');
  await Promise.resolve();
}
