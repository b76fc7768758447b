import { describe, expect, it } from 'vitest';
import type { Trace } from '@streamscope/trace';
import { deviceProfiles } from './profiles.ts';
import { gpuOps, overlapNs, runPreset } from './test-helpers.ts';

// research/viewer-anchors.md §5: the blog's measured times, ms (sequential, V1 depth-first,
// V2 breadth-first). Ratios are variant / sequential.
const blog = {
  c1060: { sequential: 12.92381, 'depth-first': 13.6369, 'breadth-first': 8.84588 },
  c2050: { sequential: 9.984512, 'depth-first': 5.735584, 'breadth-first': 7.597984 },
  k20c: { sequential: 7.10176, 'depth-first': 3.974144, 'breadth-first': 3.967616 },
} as const;

/** The blog times with events on stream 0: from the start record to the stop record. */
function eventTimedNs(trace: Trace): number {
  const records = gpuOps(trace, 'event-record');
  expect(records).toHaveLength(2);
  return records[1]!.endNs - records[0]!.startNs;
}

describe('the NVIDIA overlap blog on its three GPUs', () => {
  for (const profile of ['c1060', 'c2050', 'k20c'] as const) {
    it(`matches the measured ratios within 10% on ${profile}`, () => {
      const seq = eventTimedNs(
        runPreset('overlap-blog', { variant: 'sequential' }, deviceProfiles[profile]),
      );
      // The sequential time itself is what the profile was calibrated to.
      expect(
        Math.abs(seq / 1e6 - blog[profile].sequential) / blog[profile].sequential,
      ).toBeLessThan(0.05);
      for (const variant of ['depth-first', 'breadth-first'] as const) {
        const t = eventTimedNs(runPreset('overlap-blog', { variant }, deviceProfiles[profile]));
        const want = blog[profile][variant] / blog[profile].sequential;
        const got = t / seq;
        expect(
          Math.abs(got - want) / want,
          `${variant}: simulated ${got.toFixed(3)}, blog ${want.toFixed(3)}`,
        ).toBeLessThan(0.1);
      }
    });
  }

  it('C1060 depth-first: the single copy queue stalls on each D2H, so copies never overlap kernels', () => {
    const trace = runPreset('overlap-blog', { variant: 'depth-first' }, deviceProfiles.c1060);
    const kernels = gpuOps(trace, 'kernel');
    const copies = [...gpuOps(trace, 'copy-htod'), ...gpuOps(trace, 'copy-dtoh')];
    const shared = kernels.reduce(
      (sum, k) => sum + copies.reduce((s, c) => s + overlapNs(k, c), 0),
      0,
    );
    expect(shared).toBe(0);
  });

  it('C1060 breadth-first: each kernel runs under the next H2D', () => {
    const trace = runPreset('overlap-blog', { variant: 'breadth-first' }, deviceProfiles.c1060);
    const h2d = gpuOps(trace, 'copy-htod');
    const kernels = gpuOps(trace, 'kernel');
    for (let i = 0; i < 3; i++) {
      expect(overlapNs(kernels[i]!, h2d[i + 1]!)).toBeGreaterThan(0);
    }
  });

  it('C2050 breadth-first: no D2H starts before the last kernel ends (delayed kernel signals)', () => {
    const trace = runPreset('overlap-blog', { variant: 'breadth-first' }, deviceProfiles.c2050);
    const lastKernelEnd = Math.max(...gpuOps(trace, 'kernel').map((k) => k.endNs));
    for (const d2h of gpuOps(trace, 'copy-dtoh')) {
      expect(d2h.startNs).toBeGreaterThanOrEqual(lastKernelEnd);
    }
  });

  it('C2050 depth-first: separate H2D and D2H engines let a D2H run beside the next H2D', () => {
    const trace = runPreset('overlap-blog', { variant: 'depth-first' }, deviceProfiles.c2050);
    const h2d = gpuOps(trace, 'copy-htod');
    const d2h = gpuOps(trace, 'copy-dtoh');
    expect(overlapNs(d2h[0]!, h2d[2]!)).toBeGreaterThan(0);
  });

  it('K20c breadth-first: with Hyper-Q the first D2H starts before the last kernel ends', () => {
    const trace = runPreset('overlap-blog', { variant: 'breadth-first' }, deviceProfiles.k20c);
    const lastKernelEnd = Math.max(...gpuOps(trace, 'kernel').map((k) => k.endNs));
    expect(gpuOps(trace, 'copy-dtoh')[0]!.startNs).toBeLessThan(lastKernelEnd);
  });
});
