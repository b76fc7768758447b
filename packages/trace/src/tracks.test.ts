import { describe, expect, it } from 'vitest';
import type { StreamType, TrackInfo } from './tracks.ts';
import { displayOrder, trackLabel, trackLabels } from './tracks.ts';

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

describe('trackLabels', () => {
  it('tells apart streams that share an id by what differs: the GPU, the process', () => {
    const tracks = [
      stream(1, 0, 7, 'blocking'),
      stream(1, 1, 7, 'blocking'),
      stream(1, 0, 13, 'non-blocking'),
      { ...stream(2, 0, 13, 'non-blocking') },
      { kind: 'host-thread', name: 'main', pid: 1, tid: 10 } as const,
      { kind: 'host-thread', name: 'main', pid: 1, tid: 11 } as const,
      { kind: 'host-thread', name: '', pid: 1, tid: 12 } as const,
    ];
    expect(trackLabels(tracks)).toEqual([
      'Stream 7 · GPU 0',
      'Stream 7 · GPU 1',
      'Stream 13 · pid 1',
      'Stream 13 · pid 2',
      'main · tid 10',
      'main · tid 11',
      'Thread 12',
    ]);
  });

  it('numbers a track listed twice and follows a growing list', () => {
    const same = stream(1, 0, 7, 'blocking');
    const tracks = [same, same];
    expect(trackLabels(tracks)).toEqual(['Stream 7', 'Stream 7 (2)']);
    tracks.push(stream(1, 1, 7, 'blocking'));
    expect(trackLabels(tracks)).toEqual([
      'Stream 7 · GPU 0',
      'Stream 7 · GPU 0 (2)',
      'Stream 7 · GPU 1',
    ]);
  });
});
