import { StreamType } from '@streamscope/trace';
import type { TrackInfo } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { inStreamOrder, streamLabelWithDevice, streamRanks } from './stream-order.ts';

const stream = (deviceId: number, streamId: number, streamType: StreamType): TrackInfo => ({
  kind: 'gpu-stream',
  name: '',
  pid: 1,
  deviceId,
  contextId: 1,
  streamId,
  streamType,
  priority: 0,
});

// Track indices as a trace might list them: discovery order, not display order.
const tracks: TrackInfo[] = [
  stream(1, 7, StreamType.NonBlocking), // 0
  stream(0, 15, StreamType.NonBlocking), // 1
  { kind: 'host-thread', name: '', pid: 1, tid: 42 }, // 2
  stream(0, 7, StreamType.NonBlocking), // 3
  stream(0, 1, StreamType.LegacyDefault), // 4
];

describe('stream order', () => {
  it('puts host threads first, then per GPU the default stream, then by stream id', () => {
    // Display order: thread (2), GPU 0 default (4), GPU 0 stream 7 (3), 15 (1), GPU 1 stream 7 (0).
    expect([...streamRanks(tracks)]).toEqual([4, 3, 0, 2, 1]);
  });

  it('sorts any list of per-track rows into that order, whatever order it came in', () => {
    const rows = [0, 1, 2, 3, 4].map((track) => ({ track, label: `t${track}` }));
    expect(inStreamOrder(tracks, rows).map((r) => r.track)).toEqual([2, 4, 3, 1, 0]);
    expect(inStreamOrder(tracks, [...rows].reverse()).map((r) => r.track)).toEqual([2, 4, 3, 1, 0]);
  });
});

describe('streamLabelWithDevice', () => {
  it('names the GPU once on a multi-GPU trace', () => {
    expect(streamLabelWithDevice(tracks[1], 'Stream 15', 2)).toBe('GPU 0 · Stream 15');
    expect(streamLabelWithDevice(tracks[0], 'Stream 7 · GPU 1', 2)).toBe('Stream 7 · GPU 1');
  });

  it('leaves the label alone on one GPU and for host threads', () => {
    expect(streamLabelWithDevice(tracks[1], 'Stream 15', 1)).toBe('Stream 15');
    expect(streamLabelWithDevice(tracks[2], 'Thread 42', 2)).toBe('Thread 42');
  });
});
