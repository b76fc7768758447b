import { OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { KernelClass, kernelClassOfName } from './kernel-classes.ts';
import { TestTraceBuilder, pinnedToDevice } from './test-trace-builder.ts';

const us = 1000;
const allReduce = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)';

describe('kernel classes by name', () => {
  it('calls NCCL and RCCL collectives and point-to-point kernels communication', () => {
    for (const name of [
      'ncclDevKernel_AllReduce_Sum_f32_RING_LL',
      'ncclKernel_AllGather_RING_LL_Sum_int8_t',
      'void ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)',
      '_Z31ncclKernel_AllReduce_RING_LL_SumfP14ncclDevComm',
      'rccl_AllReduce_kernel',
    ]) {
      expect(kernelClassOfName(name), name).toBe(KernelClass.Communication);
    }
  });

  it('calls memcpy and memset kernels memory and everything else compute', () => {
    expect(kernelClassOfName('void at::native::memcpy_kernel<float>(float*, float const*)')).toBe(
      KernelClass.Memory,
    );
    expect(kernelClassOfName('Memset32Kernel')).toBe(KernelClass.Memory);
    for (const name of [
      'sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8',
      'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>',
      'funcclKernel',
    ]) {
      expect(kernelClassOfName(name), name).toBe(KernelClass.Compute);
    }
  });
});

describe('kernel class metrics', () => {
  it('reports time per class and |communication ∩ compute| / |communication|', () => {
    const b = new TestTraceBuilder();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    b.kernel(s1, 0, 100, 'gemm');
    b.kernel(s2, 50, 150, allReduce);
    b.kernel(s1, 200, 210, 'memcpy32_post');
    const a = analyzeTrace(b.trace);
    expect(a.metrics.kernelClasses).toEqual({ computeNs: 100, communicationNs: 100, memoryNs: 10 });
    // The all-reduce [50, 150] runs beside the gemm [0, 100] for 50 of its 100 ns.
    expect(a.metrics.overlap.commCompute).toBe(0.5);
    expect(a.metrics.overlap.exposedCommunicationNs).toBe(50);
    // The SMs are busy with every kernel: [0, 150] and [200, 210].
    expect(a.metrics.busyNsByEngine.compute).toBe(160);
    const classes = Object.fromEntries(a.kernelStats.map((k) => [k.name, k.kernelClass]));
    expect(classes).toEqual({
      gemm: 'compute',
      [allReduce]: 'communication',
      memcpy32_post: 'memory',
    });
  });

  it('gives null communication overlap when there is no communication', () => {
    const b = new TestTraceBuilder();
    b.kernel(b.stream(1), 0, 100, 'gemm');
    const m = analyzeTrace(b.trace).metrics;
    expect(m.overlap.commCompute).toBeNull();
    expect(m.kernelClasses.communicationNs).toBe(0);
  });

  it('no longer counts a copy beside an NCCL kernel as overlapped with compute', () => {
    const b = new TestTraceBuilder();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    b.kernel(s1, 0, 100, allReduce);
    b.gpu({
      track: s2,
      kind: OpKind.CopyHtoD,
      startNs: 0,
      endNs: 100,
      bytes: 1000,
      memKinds: pinnedToDevice,
    });
    expect(analyzeTrace(b.trace).metrics.overlap.all).toBe(0);
  });

  it("takes the class from a collective's host range around the launch", () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    const launch = (t: number) => ({
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: t,
      endNs: t + 5,
    });
    b.range(host, 'nccl:all_reduce', 0, 50, 'cpu_op');
    b.kernel(s, 100, 200, 'custom_allreduce_kernel', launch(10));
    b.kernel(s, 200, 220, 'memcpy_flatten', launch(20));
    b.kernel(s, 300, 400, 'gemm', launch(60));
    expect(analyzeTrace(b.trace).metrics.kernelClasses).toEqual({
      computeNs: 100,
      communicationNs: 100,
      memoryNs: 20,
    });
  });
});

describe('exposed-communication rule', () => {
  function trace(commFromNs: number) {
    const b = new TestTraceBuilder();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    b.kernel(s1, 100 * us, 600 * us, 'gemm');
    const comm = b.kernel(s2, commFromNs, commFromNs + 100 * us, allReduce);
    return { b, comm };
  }

  it('fires for communication with no compute beside it, saving at most that time', () => {
    const { b, comm } = trace(0);
    const f = analyzeTrace(b.trace).findings.find((x) => x.ruleId === 'exposed-communication')!;
    // The all-reduce [0, 100 µs] ends as the gemm begins: 100 µs exposed, 500 µs of compute
    // alone; overlap could hide min(100, 500) µs.
    expect(f.estimatedSavingNs).toBe(100 * us);
    expect(f.opIndices).toEqual([comm]);
    expect(f.message).toContain('100 µs (16.7% of the run) of communication ran with no compute');
    expect(f.message).toContain('ncclDevKernel_AllReduce_Sum_f32_RING_LL 100 µs');
  });

  it('says that little compute exists, rather than a tiny saving, when compute bounds it', () => {
    const b = new TestTraceBuilder();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    b.kernel(s2, 0, 1000 * us, allReduce);
    b.kernel(s1, 1000 * us, 1002 * us, 'gemm');
    const f = analyzeTrace(b.trace).findings.find((x) => x.ruleId === 'exposed-communication')!;
    // 1000 µs of communication alone, 2 µs of compute alone: min(1000, 2) = 2 µs.
    expect(f.estimatedSavingNs).toBe(2 * us);
    expect(f.message).toContain('Only 2 µs of compute ran in the whole trace to overlap it with');
    expect(f.message).toContain('cannot save more than 2 µs');
    expect(f.message).not.toContain('could save up to');
  });

  it('keeps quiet when the communication runs beside compute', () => {
    const { b } = trace(200 * us);
    const a = analyzeTrace(b.trace);
    expect(a.metrics.overlap.commCompute).toBe(1);
    expect(a.findings.map((f) => f.ruleId)).not.toContain('exposed-communication');
  });
});
