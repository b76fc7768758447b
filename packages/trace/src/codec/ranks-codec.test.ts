import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Trace } from '../trace.ts';
import { displayOrder, trackLabels } from '../tracks.ts';
import { CodecError } from './codec-error.ts';
import { loadTrace } from './trace-decoder.ts';
import { saveTrace } from './trace-encoder.ts';

/** Two ranks whose processes share pid 1 (two containers), each with host thread 1 and stream 7. */
function twoRanks(): Trace {
  const trace = new Trace({
    title: 'job',
    clockEpochNs: '1790857026000000000',
    distributed: { rank: 0, worldSize: 2, backend: 'nccl' },
  });
  for (const rank of [1, 0]) {
    trace.addProcess({ pid: 1, name: 'python3', rank });
    trace.addTrack({ kind: 'host-thread', name: '', pid: 1, tid: 1, rank });
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId: 7,
      streamType: 'unknown',
      priority: 0,
      rank,
    });
  }
  return trace;
}

describe('ranks in the trace model', () => {
  it('round-trips ranks, the clock and distributedInfo through the codec', () => {
    const loaded = loadTrace(saveTrace(twoRanks()));
    expect(loaded.meta.clockEpochNs).toBe('1790857026000000000');
    expect(loaded.meta.distributed).toEqual({ rank: 0, worldSize: 2, backend: 'nccl' });
    expect(loaded.processes.map((p) => p.rank)).toEqual([1, 0]);
    expect(loaded.tracks.map((t) => t.rank)).toEqual([1, 1, 0, 0]);
  });

  it('orders tracks by rank first and tells equal tracks apart by rank', () => {
    const trace = twoRanks();
    // Rank 0's host thread (2) and stream (3), then rank 1's (0, 1).
    expect(displayOrder(trace.tracks)).toEqual([2, 3, 0, 1]);
    expect(trackLabels(trace.tracks)).toEqual([
      'Thread 1 · rank 1',
      'Stream 7 · rank 1',
      'Thread 1 · rank 0',
      'Stream 7 · rank 0',
    ]);
  });

  it('still loads files written before ranks existed', () => {
    // Recorded before this change: no rank, clockEpochNs or distributed anywhere.
    const bytes = readFileSync(
      new URL('../../../../fixtures/runs/pipeline.sstrace', import.meta.url),
    );
    const trace = loadTrace(bytes);
    expect(trace.ops.count).toBeGreaterThan(0);
    expect(trace.tracks.every((t) => t.rank === undefined)).toBe(true);
    expect(trace.meta.distributed).toBeUndefined();
  });

  it('names the JSON path of a bad rank', () => {
    const trace = twoRanks();
    trace.addProcess({ pid: 2, name: 'x', rank: -1 });
    expect(() => loadTrace(saveTrace(trace))).toThrow(CodecError);
    expect(() => loadTrace(saveTrace(trace))).toThrow(/\$\.processes\[2\]\.rank/);
    const bad = new Trace({ distributed: { rank: 0, worldSize: 0, backend: '' } });
    expect(() => loadTrace(saveTrace(bad))).toThrow(/\$\.distributed\.worldSize/);
  });
});
