import { RangeKind, StreamType, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { isGroupKey } from './group-keys.ts';
import { computeLayout } from './layout.ts';

/** Two processes; pid 7 has a host thread with CPU ops and annotations (kineto) and 2 streams. */
function trace(): Trace {
  const t = new Trace();
  t.addDevice({ deviceId: 0, name: 'H100' });
  t.addProcess({ pid: 7, name: 'train' });
  t.addProcess({ pid: 9, name: 'eval' });
  const stream = (pid: number, streamId: number): number =>
    t.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid,
      deviceId: 0,
      contextId: 1,
      streamId,
      streamType: StreamType.NonBlocking,
      priority: 0,
    });
  stream(7, 7); // 0
  stream(7, 8); // 1
  stream(9, 7); // 2
  const host = t.addTrack({ kind: 'host-thread', name: 'main', pid: 7, tid: 70 }); // 3
  const nvtxHost = t.addTrack({ kind: 'host-thread', name: 'eval', pid: 9, tid: 90 }); // 4
  const range = (track: number, domain: string, depth: number): void => {
    t.ranges.append({
      startNs: depth,
      endNs: 100 - depth,
      track,
      nameId: t.strings.intern('r'),
      domainId: domain === '' ? 0 : t.strings.intern(domain),
      depth,
      kind: RangeKind.PushPop,
    });
  };
  range(host, 'cpu_op', 0);
  range(host, 'cpu_op', 1);
  range(host, 'user_annotation', 0);
  range(nvtxHost, '', 0);
  return t;
}

const labels = (keys: string[] = []) =>
  computeLayout(trace(), { collapsedGroups: new Set(keys) }).rows.map((r) => r.label);

describe('folding row headers', () => {
  it('names range lanes by what they hold: PyTorch ops are not NVTX', () => {
    const all = labels();
    expect(all).toContain('CPU ops + user annotations');
    expect(all.filter((l) => l === 'NVTX')).toHaveLength(1);
  });

  it('folds a device to its header with the count of streams it hides', () => {
    const layout = computeLayout(trace(), { collapsedGroups: new Set(['d7.0']) });
    const header = layout.rows.find((r) => r.groupKey === 'd7.0')!;
    expect(header).toMatchObject({ kind: 'group', collapsed: true });
    expect(header.label).toBe('GPU 0 · H100 · 2 streams hidden');
    expect(layout.rowOfTrack[0]).toBe(-1);
    expect(layout.rowOfTrack[1]).toBe(-1);
    // The other process' stream on the same device stays.
    expect(layout.rowOfTrack[2]).toBeGreaterThanOrEqual(0);
  });

  it('folds a process, its host threads, and one track\u2019s range lanes', () => {
    const process = computeLayout(trace(), { collapsedGroups: new Set(['p7']) });
    expect(process.rows.find((r) => r.groupKey === 'p7')!.label).toBe(
      'train (pid 7) · 3 tracks hidden',
    );
    expect([0, 1, 3].map((t) => process.rowOfTrack[t])).toEqual([-1, -1, -1]);

    const host = computeLayout(trace(), { collapsedGroups: new Set(['h7']) });
    expect(host.rows.find((r) => r.groupKey === 'h7')!.label).toBe(
      'Host threads · 1 thread hidden',
    );
    expect(host.rowOfTrack[3]).toBe(-1);

    const lanes = computeLayout(trace(), { collapsedGroups: new Set(['n3']) });
    expect(lanes.nvtxRowOfTrack[3]).toBe(-1);
    const folded = lanes.rows.find((r) => r.groupKey === 'n3')!;
    expect(folded).toMatchObject({ kind: 'group', collapsed: true, heightPx: 14 });
    expect(folded.label).toBe('CPU ops + user annotations · 3 ranges hidden');
    // The thread's own row stays.
    expect(lanes.rowOfTrack[3]).toBeGreaterThanOrEqual(0);
  });

  it('gives every foldable header a key a link can carry', () => {
    const keys = computeLayout(trace())
      .rows.map((r) => r.groupKey)
      .filter((k) => k !== undefined);
    expect(keys.length).toBeGreaterThanOrEqual(6);
    expect(keys.every(isGroupKey)).toBe(true);
  });

  it('gives no header a key where the view does not fold (lessons, compared views)', () => {
    const layout = computeLayout(trace(), { foldable: false, collapsedGroups: new Set(['d7.0']) });
    expect(layout.rows.every((r) => r.groupKey === undefined)).toBe(true);
    expect(layout.rowOfTrack[0]).toBeGreaterThanOrEqual(0);
  });
});
