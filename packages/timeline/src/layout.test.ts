import { RangeKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { computeLayout, rowIndexAt } from './layout.ts';

function twoProcessTrace(): Trace {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: 'A100' });
  trace.addProcess({ pid: 7, name: 'train' });
  trace.addProcess({ pid: 9, name: 'eval' });
  const stream = (pid: number, contextId: number, streamId: number): number =>
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid,
      deviceId: 0,
      contextId,
      streamId,
      streamType: 'non-blocking',
      priority: 0,
    });
  stream(9, 1, 3); // 0
  stream(7, 2, 5); // 1
  stream(7, 1, 4); // 2
  const thread = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 7, tid: 70 }); // 3
  const name = trace.strings.intern('step');
  for (let depth = 0; depth < 3; depth++) {
    trace.ranges.append({
      startNs: depth,
      endNs: 100 - depth,
      track: thread,
      nameId: name,
      domainId: 0,
      depth,
      kind: RangeKind.PushPop,
    });
  }
  return trace;
}

describe('computeLayout', () => {
  it('groups streams under process, device and context headers, host threads first', () => {
    const layout = computeLayout(twoProcessTrace());
    expect(layout.rows.map((r) => `${r.kind}:${r.label}`)).toEqual([
      'group:train (pid 7)',
      'group:Host threads',
      'track:main',
      'nvtx:NVTX',
      'group:GPU 0 · A100',
      'group:Context 1',
      'track:Stream 4',
      'group:Context 2',
      'track:Stream 5',
      'group:eval (pid 9)',
      'group:GPU 0 · A100',
      'track:Stream 3',
    ]);
  });

  it('gives each rank its own group, by rank, even when two ranks share a pid', () => {
    const trace = new Trace();
    for (const rank of [1, 0]) {
      trace.addProcess({ pid: 1, name: 'python3', rank });
      trace.addTrack({
        kind: 'gpu-stream',
        name: '',
        pid: 1,
        deviceId: 0,
        contextId: 1,
        streamId: 7,
        streamType: 'non-blocking',
        priority: 0,
        rank,
      });
    }
    expect(computeLayout(trace).rows.map((r) => `${r.kind}:${r.label}`)).toEqual([
      'group:rank 0 · python3 (pid 1)',
      'group:GPU 0',
      'track:Stream 7',
      'group:rank 1 · python3 (pid 1)',
      'group:GPU 0',
      'track:Stream 7',
    ]);
  });

  it('names a device once when the export calls it just "GPU 0"', () => {
    const trace = new Trace();
    trace.addDevice({ deviceId: 0, name: 'GPU 0' });
    trace.addDevice({ deviceId: 1, name: 'H100' });
    for (const deviceId of [0, 1]) {
      trace.addTrack({
        kind: 'gpu-stream',
        name: '',
        pid: 1,
        deviceId,
        contextId: 1,
        streamId: 7,
        streamType: 'non-blocking',
        priority: 0,
      });
    }
    const groups = computeLayout(trace).rows.filter((r) => r.label.startsWith('GPU'));
    expect(groups.map((r) => r.label)).toEqual(['GPU 0', 'GPU 1 · H100']);
  });

  it('stacks NVTX depths into one lane row and stacks rows without gaps', () => {
    const layout = computeLayout(twoProcessTrace(), { nvtxLaneHeightPx: 10 });
    const nvtx = layout.rows[layout.nvtxRowOfTrack[3]!]!;
    expect(nvtx.depthCount).toBe(3);
    expect(nvtx.heightPx).toBe(30);
    let y = 0;
    for (const row of layout.rows) {
      expect(row.topPx).toBe(y);
      y += row.heightPx;
    }
    expect(layout.contentHeightPx).toBe(y);
  });

  it('finds the row under a y, pinned rows staying put while the rest scroll', () => {
    const layout = computeLayout(twoProcessTrace(), {
      pinnedTracks: [0],
      hiddenTracks: new Set([1]),
    });
    expect(layout.pinnedRowCount).toBe(1);
    expect(layout.rowOfTrack[1]).toBe(-1);
    const pinnedHeightPx = layout.pinnedHeightPx;
    expect(rowIndexAt(layout, 1, 500)).toBe(0);
    // Just under the pinned band, scrolled by 0 and by the first row's height.
    const first = layout.rows[1]!;
    expect(rowIndexAt(layout, pinnedHeightPx + 1, 0)).toBe(1);
    expect(rowIndexAt(layout, pinnedHeightPx + 1, first.heightPx)).toBe(2);
    expect(rowIndexAt(layout, pinnedHeightPx + layout.contentHeightPx + 5, 0)).toBe(-1);
    expect(rowIndexAt(layout, -1, 0)).toBe(-1);
  });
});
