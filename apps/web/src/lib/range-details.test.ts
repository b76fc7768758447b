import { RangeKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { rangeDetails } from './range-details.ts';

function trace(): Trace {
  const t = new Trace();
  t.addProcess({ pid: 1, name: 'python' });
  const host = t.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  t.ranges.append({
    startNs: 1_000,
    endNs: 4_500,
    track: host,
    nameId: t.strings.intern('aten::linear'),
    domainId: t.strings.intern('cpu_op'),
    depth: 1,
    kind: RangeKind.PushPop,
  });
  t.ranges.append({
    startNs: 0,
    endNs: 9_000,
    track: host,
    nameId: t.strings.intern('forward'),
    domainId: 0,
    depth: 0,
    kind: RangeKind.PushPop,
  });
  return t;
}

describe('range details', () => {
  it('calls a PyTorch aten:: op a CPU op with its category, depth and duration', () => {
    expect(rangeDetails(trace(), 0)).toMatchObject({
      name: 'aten::linear',
      source: 'CPU ops',
      domain: 'cpu_op',
      depth: 1,
      kind: 'push/pop',
      startNs: 1_000,
      durNs: 3_500,
    });
  });

  it("calls a range of NVTX's default domain NVTX", () => {
    expect(rangeDetails(trace(), 1)).toMatchObject({ source: 'NVTX', domain: 'default' });
  });

  it('is null for a range the trace does not have', () => {
    expect(rangeDetails(trace(), 2)).toBeNull();
    expect(rangeDetails(trace(), -1)).toBeNull();
  });
});
