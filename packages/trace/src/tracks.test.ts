import { describe, expect, it } from 'vitest';
import type { StreamType, TrackInfo } from './tracks.ts';
import { displayOrder, trackLabel } from './tracks.ts';

const stream = (
  pid: number,
  deviceId: number,
  streamId: number,
  streamType: StreamType,
): TrackInfo => ({
  kind: 'gpu-stream',
  name: '',
  pid,
  deviceId,
  contextId: 1,
  streamId,
  streamType,
  priority: 0,
});

describe('displayOrder', () => {
  it('puts each process first by its host threads, then its devices, default streams first', () => {
    const tracks: TrackInfo[] = [
      stream(10, 1, 3, 'non-blocking'), // 0
      stream(10, 0, 14, 'non-blocking'), // 1
      { kind: 'host-thread', name: 'worker', pid: 10, tid: 22 }, // 2
      stream(10, 0, 7, 'legacy-default'), // 3
      { kind: 'host-thread', name: 'main', pid: 10, tid: 11 }, // 4
      stream(5, 0, 13, 'blocking'), // 5
      stream(10, 0, 13, 'non-blocking'), // 6
    ];
    expect(displayOrder(tracks)).toEqual([5, 4, 2, 3, 6, 1, 0]);
  });

  it('keeps equal tracks in their original order (stable)', () => {
    const same = stream(1, 0, 13, 'blocking');
    expect(displayOrder([same, same, same])).toEqual([0, 1, 2]);
  });
});

describe('trackLabel', () => {
  it('uses the name when there is one and a stream or thread id otherwise', () => {
    expect(trackLabel({ kind: 'host-thread', name: '', pid: 1, tid: 99 })).toBe('Thread 99');
    expect(trackLabel(stream(1, 0, 13, 'blocking'))).toBe('Stream 13');
    expect(trackLabel({ kind: 'host-thread', name: 'main', pid: 1, tid: 99 })).toBe('main');
  });
});
