import { OpKind, RangeKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { HostRanges } from './host-ranges.ts';
import { TestTraceBuilder, pageableToDevice } from './test-trace-builder.ts';

const us = 1000;
const ms = 1000 * us;
const nextBatch = 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__';

/**
 * A training loop starved by its data loader, as kineto records it: per 40 ms step the main
 * thread spends 0.2 → 25 ms in the DataLoader's __next__ (a CPU range inside ProfilerStep#k),
 * copies the batch with two pageable cudaMemcpyAsync calls, then launches one 11 ms kernel.
 */
function starvedTraining(steps: number) {
  const b = new TestTraceBuilder();
  const host = b.host();
  const s = b.stream(7);
  const loads: number[] = [];
  const copies: number[] = [];
  for (let k = 0; k < steps; k++) {
    const base = k * 40 * ms;
    b.range(host, `ProfilerStep#${k}`, base, base + 40 * ms, 'user_annotation');
    loads.push(b.range(host, nextBatch, base + 0.2 * ms, base + 25 * ms, 'user_annotation'));
    const copy = (from: number, apiFrom: number, apiTo: number) =>
      b.gpu({
        track: s,
        kind: OpKind.CopyHtoD,
        startNs: base + from,
        endNs: base + from + 0.3 * ms,
        bytes: 8 << 20,
        memKinds: pageableToDevice,
        api: {
          hostTrack: host,
          name: 'cudaMemcpyAsync',
          startNs: base + apiFrom,
          endNs: base + apiTo,
        },
      });
    copies.push(copy(25.6 * ms, 25.1 * ms, 26.1 * ms), copy(26.2 * ms, 26.15 * ms, 26.55 * ms));
    b.kernel(s, base + 27 * ms, base + 38 * ms, 'conv', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: base + 26.6 * ms,
      endNs: base + 26.61 * ms,
    });
  }
  return { b, host, loads, copies };
}

describe('gaps attributed to what the host thread was doing', () => {
  it('names the innermost CPU range covering the gap, not the copy call that ended it', () => {
    const { b, loads } = starvedTraining(3);
    const a = analyzeTrace(b.trace);
    const gaps = a.gaps.device.listed.filter((g) => g.durNs > ms);
    // Between steps the GPU idles from the last kernel's end (k·40 − 2 ms) to the first copy
    // (k·40 + 25.6 ms): 27.6 ms, while the host was in the DataLoader from k·40 + 0.2 ms.
    expect(gaps.map((g) => [g.durNs, g.cause, g.causeRange, g.causeOp])).toEqual([
      [27.6 * ms, 'host-busy', loads[1], -1],
      [27.6 * ms, 'host-busy', loads[2], -1],
    ]);
    expect(gaps[0]!.detail).toContain(`(host busy in ${nextBatch}, not blocked by CUDA)`);
    expect(gaps[0]!.detail).not.toContain('cudaMemcpyAsync');
    // The range is charged its time before the copy began: 25 − 0.2 = 24.8 ms of the 27.6 ms.
    expect(gaps[0]!.causeNs).toBeCloseTo(24.8 * ms, 3);
  });

  it('keeps the pageable-copy finding to the time the copies took', () => {
    const { b, copies } = starvedTraining(3);
    const a = analyzeTrace(b.trace);
    const f = a.findings.find((x) => x.ruleId === 'pageable-copy')!;
    expect(f.opIndices.sort((x, y) => x - y)).toEqual(copies);
    // Each step's two calls and copies span 25.1 → 26.1 ms and 26.15 → 26.55 ms: 1.4 ms, 4.2 ms
    // for three steps. The 55 ms the GPU idled in the DataLoader is not theirs.
    expect(f.estimatedSavingNs).toBeLessThanOrEqual(4.2 * ms);
    // What is theirs: idle 25.9 → 26.2 ms while the host sat in the first call (0.3 ms), and
    // 26.5 → 27 ms after the second, which held the host until 26.55 ms (0.4 ms of its time
    // before the kernel): 0.7 ms a step.
    expect(f.message).toContain(
      'The GPU sat idle 2.1 ms (2.3% of the run) while the host was held in them.',
    );
  });

  it('claims for the idle gaps what the DataLoader took, not all gap time', () => {
    const { b } = starvedTraining(3);
    const f = analyzeTrace(b.trace).findings.find((x) => x.ruleId === 'gpu-gaps')!;
    // Two gaps of 27.6 ms, the DataLoader accounting for 24.8 ms of each, and per step 0.3 + 0.5 ms
    // after the copies, of which the pageable calls account for 0.3 + 0.4 ms.
    expect(f.message).toContain(
      '8 GPU idle gaps (no stream of the GPU busy) of at least 10 µs, 57.6 ms',
    );
    expect(f.estimatedSavingNs).toBeCloseTo(2 * 24.8 * ms + 3 * 0.7 * ms, 3);
  });

  it('prefers a host op covering most of the late time to the range around it', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 10 * us, 100 * us, 'k1', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 0,
      endNs: us,
    });
    b.range(host, 'aten::to', 90 * us, 400 * us, 'cpu_op');
    const work = b.apiCall(
      { hostTrack: host, name: 'cudaEventQuery', startNs: 120 * us, endNs: 390 * us },
      0,
    );
    b.kernel(s, 410 * us, 500 * us, 'k2', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 400 * us,
      endNs: 401 * us,
    });
    const gap = analyzeTrace(b.trace).gaps.stream.listed[0]!;
    // Late 100 → 400 µs; the query covers 270 of those 300 µs: the innermost thing covering half.
    expect(gap).toMatchObject({ cause: 'host-busy', causeOp: work, causeRange: -1 });
  });

  it('walks out to the enclosing range when the inner one covers less than half', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    const launch = (t: number) => ({
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: t,
      endNs: t + us,
    });
    b.kernel(s, 10 * us, 100 * us, 'k1', launch(0));
    const outer = b.range(host, 'optimizer.step', 50 * us, 500 * us);
    b.range(host, 'aten::add_', 150 * us, 200 * us);
    b.kernel(s, 510 * us, 600 * us, 'k2', launch(500 * us));
    const gap = analyzeTrace(b.trace).gaps.stream.listed[0]!;
    expect(gap).toMatchObject({ cause: 'host-busy', causeRange: outer, causeOp: -1 });
    expect(gap.detail).toContain('host busy in optimizer.step');
    // Charged from the range's start to the op's start, at most the gap: min(410, 450) µs.
    expect(gap.causeNs).toBe(410 * us);
  });

  it('charges a late launch call only its own time when nothing else was recorded', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 10 * us, 100 * us, 'k1', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 0,
      endNs: us,
    });
    const late = {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 1 * ms,
      endNs: 1 * ms + 30 * us,
    };
    b.kernel(s, 1 * ms + 40 * us, 2 * ms, 'k2', late);
    const gap = analyzeTrace(b.trace).gaps.stream.listed[0]!;
    // Idle 100 µs → 1.04 ms (940 µs); the host spent 30 µs of it in the call.
    expect(gap).toMatchObject({ durNs: 940 * us, cause: 'host-busy', causeNs: 30 * us });
  });
});

describe('HostRanges', () => {
  it('finds the innermost range covering half of an interval, whatever the stored order', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const other = b.host(2);
    const inner = b.range(host, 'inner', 200, 300);
    const outer = b.range(host, 'outer', 0, 1000);
    const middle = b.range(host, 'middle', 100, 600);
    b.range(other, 'elsewhere', 0, 1000);
    const index = new HostRanges(b.trace);
    expect(index.count).toBe(4);
    expect(index.innermostCovering(host, 210, 290)).toBe(inner);
    // [150, 450]: inner covers 100 of 300 ns, middle 300: middle.
    expect(index.innermostCovering(host, 150, 450)).toBe(middle);
    // [500, 900]: middle covers 100 of 400 ns, outer all of it.
    expect(index.innermostCovering(host, 500, 900)).toBe(outer);
    expect(index.innermostCovering(host, 1100, 1200)).toBe(-1);
    expect(index.innermostAt(host, 250)).toBe(inner);
  });

  it('indexes ranges stored children first, as producers append them when they end', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    // 600 nested chains outer ⊃ middle ⊃ inner, each 1000 ns apart, appended inner first and
    // the whole list backwards: far past what insertion sort takes, so the general sort runs.
    const expected: [number, number, number][] = [];
    for (let k = 599; k >= 0; k--) {
      const t0 = k * 1000;
      const inner = b.range(host, `inner ${k}`, t0 + 400, t0 + 500);
      const middle = b.range(host, `middle ${k}`, t0 + 200, t0 + 800);
      const outer = b.range(host, `outer ${k}`, t0, t0 + 1000);
      expected.push([outer, middle, inner]);
    }
    const index = new HostRanges(b.trace);
    for (const [k, [outer, middle, inner]] of expected.reverse().entries()) {
      const t0 = k * 1000;
      expect(index.innermostAt(host, t0 + 450)).toBe(inner);
      expect(index.innermostAt(host, t0 + 300)).toBe(middle);
      expect(index.innermostAt(host, t0 + 100)).toBe(outer);
      expect(index.enclosing(inner)).toBe(middle);
      expect(index.enclosing(outer)).toBe(-1);
    }
  });

  it('leaves out start/end ranges, marks and ranges on GPU tracks', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    const nameId = b.trace.strings.intern('x');
    for (const [track, kind] of [
      [host, RangeKind.StartEnd],
      [host, RangeKind.Mark],
      [s, RangeKind.PushPop],
    ] as const) {
      b.trace.ranges.append({ startNs: 0, endNs: 100, track, nameId, domainId: 0, depth: 0, kind });
    }
    const index = new HostRanges(b.trace);
    expect(index.count).toBe(0);
    expect(index.innermostAt(host, 50)).toBe(-1);
  });
});
