import { describe, expect, it } from 'vitest';
import { launchRangesByStream } from './launch-ranges.ts';
import { TestTraceBuilder } from './test-trace-builder.ts';

describe('host ranges projected onto the GPU', () => {
  it('spans each range from the first to the last op launched inside it, per stream', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    const forward = b.range(host, 'forward', 0, 100);
    const backward = b.range(host, 'backward', 100, 200);
    // An inner range: its launches belong to it, not to 'backward' around it.
    const allReduce = b.range(host, 'all_reduce', 150, 170);
    const launch = (startNs: number) => ({
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs,
      endNs: startNs + 2,
    });
    b.kernel(s1, 20, 120, 'fwd1', launch(10));
    b.kernel(s1, 130, 180, 'fwd2', launch(50));
    b.kernel(s1, 190, 260, 'bwd1', launch(110));
    b.kernel(s2, 200, 240, 'nccl', launch(155));
    b.kernel(s2, 300, 310, 'orphan', launch(250));
    b.kernel(s2, 320, 330, 'no call');
    const lanes = launchRangesByStream(b.trace);
    expect(lanes.map((l) => l.track)).toEqual([s1, s2]);
    // forward launched 20–120 and 130–180 on s1: one segment 20–180 (GPU time, not host time).
    expect(Array.from(lanes[0]!.range)).toEqual([forward, backward]);
    expect(Array.from(lanes[0]!.startNs)).toEqual([20, 190]);
    expect(Array.from(lanes[0]!.endNs)).toEqual([180, 260]);
    // s2: the NCCL kernel under all_reduce; the orphan launch (no range) is left out.
    expect(Array.from(lanes[1]!.range)).toEqual([allReduce]);
    expect(Array.from(lanes[1]!.startNs)).toEqual([200]);
  });

  it('is empty when the host recorded no ranges', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 20, 30, 'k', { hostTrack: host, name: 'cudaLaunchKernel', startNs: 0, endNs: 2 });
    expect(launchRangesByStream(b.trace)).toEqual([]);
  });
});
