import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { TestTraceBuilder } from './test-trace-builder.ts';

const us = 1000;
const allReduce = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL';

/**
 * Three profiler steps on the main thread: [0, 100], [100, 300] and [300, 400] µs, with a gemm
 * and an all-reduce on two streams of one GPU.
 */
function threeSteps() {
  const b = new TestTraceBuilder();
  const host = b.host();
  const compute = b.stream(1);
  const comm = b.stream(2);
  b.range(host, 'ProfilerStep#0', 0, 100 * us, 'user_annotation');
  b.range(host, 'ProfilerStep#1', 100 * us, 300 * us, 'user_annotation');
  b.range(host, 'ProfilerStep#2', 300 * us, 400 * us, 'user_annotation');
  b.range(host, 'aten::linear', 5 * us, 20 * us, 'cpu_op');
  b.kernel(compute, 10 * us, 60 * us, 'gemm');
  b.kernel(comm, 50 * us, 90 * us, allReduce);
  b.kernel(compute, 120 * us, 200 * us, 'gemm');
  b.kernel(comm, 200 * us, 280 * us, allReduce);
  b.kernel(compute, 300 * us, 390 * us, 'gemm');
  return { b, host, compute };
}

describe('profiler steps', () => {
  it('gives step time, GPU busy, communication, exposed communication and idle per step', () => {
    const { b } = threeSteps();
    const steps = analyzeTrace(b.trace).steps;
    expect(steps.pattern).toBe('^ProfilerStep#\\d+$');
    const rows = steps.steps.map((s) => [
      s.name,
      s.stepNs / us,
      s.gpuBusyNs / us,
      s.computeNs / us,
      s.communicationNs / us,
      s.exposedCommunicationNs / us,
      s.idleNs / us,
    ]);
    expect(rows).toEqual([
      // GPU busy [10, 90]: gemm 50, all-reduce 40 of which [60, 90] has no gemm beside it.
      ['ProfilerStep#0', 100, 80, 50, 40, 30, 20],
      // gemm [120, 200], then the all-reduce alone [200, 280].
      ['ProfilerStep#1', 200, 160, 80, 80, 80, 40],
      ['ProfilerStep#2', 100, 90, 90, 0, 0, 10],
    ]);
    expect(steps.count).toBe(3);
    expect(steps.meanStepNs).toBeCloseTo((400 * us) / 3, 6);
    expect(steps.medianStepNs).toBe(100 * us);
    expect(steps.maxStepNs).toBe(200 * us);
    expect(steps.slowest.map((s) => s.name)).toEqual([
      'ProfilerStep#1',
      'ProfilerStep#0',
      'ProfilerStep#2',
    ]);
  });

  it('takes NVTX ranges the user names as steps, counting a nested match once', () => {
    const { b, host } = threeSteps();
    b.range(host, 'train_step', 0, 200 * us);
    b.range(host, 'train_step', 50 * us, 150 * us);
    b.range(host, 'train_step', 200 * us, 400 * us);
    const steps = analyzeTrace(b.trace, undefined, { stepPattern: '^train_step$' }).steps;
    expect(steps.steps.map((s) => [s.startNs / us, s.endNs / us])).toEqual([
      [0, 200],
      [200, 400],
    ]);
  });

  it('measures each step on the GPUs of its own process', () => {
    const b = new TestTraceBuilder();
    b.trace.addDevice({ deviceId: 1, name: 'second gpu' });
    const host1 = b.host();
    const gpu0 = b.stream(1);
    const host2 = b.trace.addTrack({ kind: 'host-thread', name: '', pid: 2, tid: 7 });
    const gpu1 = b.trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 2,
      deviceId: 1,
      contextId: 1,
      streamId: 1,
      streamType: 'non-blocking',
      priority: 0,
    });
    b.range(host1, 'ProfilerStep#0', 0, 100 * us);
    b.range(host2, 'ProfilerStep#0', 0, 100 * us);
    b.kernel(gpu0, 0, 70 * us, 'gemm');
    b.kernel(gpu1, 0, 40 * us, 'gemm');
    const steps = analyzeTrace(b.trace).steps.steps;
    expect(steps.map((s) => [s.gpuBusyNs / us, s.idleNs / us])).toEqual([
      [70, 30],
      [40, 60],
    ]);
  });

  it('reports no steps for a trace without step ranges', () => {
    const b = new TestTraceBuilder();
    b.kernel(b.stream(1), 0, 10);
    expect(analyzeTrace(b.trace).steps).toMatchObject({ count: 0, steps: [], slowest: [] });
  });
});
