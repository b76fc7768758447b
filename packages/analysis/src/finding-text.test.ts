import { OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { formatTimeRange, nsAndShare } from './rules/rule-input.ts';
import { TestTraceBuilder, pinnedToDevice } from './test-trace-builder.ts';

const us = 1000;
const ms = 1000 * us;

describe('formatTimeRange', () => {
  it('prints both ends as formatDurationNs does when they differ', () => {
    expect(formatTimeRange(1.5 * ms, 20 * ms)).toBe('1.5 ms–20 ms');
  });

  it('adds digits until the two ends differ', () => {
    // Both ends read "366.7 ms" on their own.
    expect(formatTimeRange(366.7 * ms, 366.74 * ms)).toBe('366.70–366.74 ms');
    expect(formatTimeRange(366.7 * ms, 366.7 * ms + 100)).toBe('366.7000–366.7001 ms');
  });
});

describe('nsAndShare', () => {
  it('says when a figure sums several GPUs and takes its share of their time', () => {
    expect(nsAndShare(1.881e9, 969 * ms)).toBe('1.881 s (194.1% of the run)');
    expect(nsAndShare(1.881e9, 969 * ms, 2)).toBe('1.881 s across 2 GPUs (97.1% of their time)');
  });
});

describe('findings text', () => {
  it('names a CUDA call by its API name and a C++ kernel by its short name', () => {
    const b = new TestTraceBuilder();
    const h = b.host();
    const s = b.stream(1);
    b.kernel(
      s,
      0,
      100 * us,
      'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)',
      { hostTrack: h, startNs: 0, endNs: 5 * us, name: 'cudaLaunchKernel_v7000' },
    );
    // The host waits in a synchronize (nsys's versioned name) for 2 ms, then launches.
    b.apiCall({
      hostTrack: h,
      startNs: 10 * us,
      endNs: 2 * ms,
      name: 'cudaStreamSynchronize_v3020',
    });
    b.kernel(
      s,
      2.01 * ms,
      2.1 * ms,
      'void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(cutlass_80_simt_sgemm_64x64_8x5_nn_align1::Params)',
      { hostTrack: h, startNs: 2 * ms, endNs: 2.005 * ms, name: 'cudaLaunchKernel_v7000' },
    );
    const { gaps } = analyzeTrace(b.trace, undefined, { minSavingNs: 0 });
    const details = [...gaps.stream.listed, ...gaps.device.listed].map((g) => g.detail).join('\n');
    expect(details).toContain(
      'was blocked in cudaStreamSynchronize before it issued kernel "Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>"',
    );
    expect(details).not.toContain('_v3020');
    expect(details).not.toContain('Params');
  });

  it('tells the ends of a low-utilization range apart', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    // A 3 µs burst 366.7 ms into the trace: 30 chunks of 100 ns, each end "366.7 ms".
    const t0 = 366.7 * ms;
    b.kernel(s, t0, t0 + 1 * us);
    b.kernel(s, t0 + 2.9 * us, t0 + 3 * us);
    const f = analyzeTrace(b.trace, undefined, { minSavingNs: 0 }).findings.find(
      (x) => x.ruleId === 'low-utilization',
    )!;
    expect(f.message).not.toContain('366.7 ms–366.7 ms');
    // Idle chunks 10–28: 366.7010 → 366.7029 ms, to the µs that tells them apart.
    expect(f.message).toContain('366.701–366.703 ms at 0%');
  });

  it('says "across 2 GPUs" for copying summed over two GPUs and saves what one GPU can', () => {
    const b = new TestTraceBuilder();
    b.trace.addDevice({ deviceId: 1, name: 'second gpu', copyEngineCount: 2 });
    for (const deviceId of [0, 1]) {
      const s = b.stream(1, 'non-blocking', deviceId);
      // On each GPU: copy 0 → 500 µs, then its kernel 500 → 1000 µs, on one stream.
      b.gpu({
        track: s,
        kind: OpKind.CopyHtoD,
        startNs: 0,
        endNs: 500 * us,
        bytes: 1 << 20,
        memKinds: pinnedToDevice,
      });
      b.kernel(s, 500 * us, 1000 * us);
    }
    const f = analyzeTrace(b.trace).findings.find((x) => x.ruleId === 'missed-overlap')!;
    // 2 × 500 µs of copying in a 1 ms run: it is the two GPUs' sum, not the run's.
    expect(f.message).toContain(
      'Across 2 GPUs, 1 ms of copying ran with no compute kernel beside it and 1 ms of compute',
    );
    // The GPUs run side by side: overlapping saves each 500 µs, the run 500 µs, not 1 ms.
    expect(f.estimatedSavingNs).toBe(500 * us);
  });
});
