import type { WorkloadInput } from '@streamscope/workload';

/** Two devices: produce on gpu0, peer-copy to gpu1 after an event, consume there, copy back. */
export function twoGpuWorkload(iterations = 4): WorkloadInput {
  return {
    name: 'two GPUs with peer copies',
    devices: [{ name: 'gpu0' }, { name: 'gpu1' }],
    buffers: [
      { name: 'h', kind: 'host-pinned', size: '64MiB' },
      { name: 'a', kind: 'device', size: '64MiB', device: 'gpu0' },
      { name: 'b', kind: 'device', size: '64MiB', device: 'gpu1' },
    ],
    streams: [
      { name: 's0', device: 'gpu0', type: 'non-blocking' },
      { name: 's1', device: 'gpu1', type: 'non-blocking' },
    ],
    events: [{ name: 'produced' }, { name: 'consumed' }],
    threads: [
      {
        name: 'main',
        ops: [
          { op: 'copy', src: 'h', dst: 'a', stream: 's0' },
          {
            op: 'repeat',
            count: iterations,
            ops: [
              { op: 'kernel', name: 'produce', duration: '500us', stream: 's0' },
              { op: 'eventRecord', event: 'produced', stream: 's0' },
              { op: 'streamWait', event: 'produced', stream: 's1' },
              { op: 'copy', src: 'a', dst: 'b', stream: 's1' },
              { op: 'kernel', name: 'consume', duration: '500us', stream: 's1' },
              { op: 'eventRecord', event: 'consumed', stream: 's1' },
              { op: 'streamWait', event: 'consumed', stream: 's0' },
            ],
          },
          { op: 'copy', src: 'b', dst: 'h', stream: 's1' },
          { op: 'streamSync', stream: 's1' },
          { op: 'streamSync', stream: 's0' },
        ],
      },
    ],
  };
}

/** Two host threads, each on its own per-thread default stream, one waiting on the other's event. */
export function twoThreadsWorkload(): WorkloadInput {
  return {
    name: 'two host threads, per-thread default streams',
    buffers: [
      { name: 'h', kind: 'host-pinned', size: '32MiB' },
      { name: 'd', kind: 'device', size: '32MiB' },
    ],
    events: [{ name: 'loaded' }],
    threads: [
      {
        name: 'loader',
        ops: [
          { op: 'copy', src: 'h', dst: 'd', stream: 'per-thread' },
          { op: 'eventRecord', event: 'loaded', stream: 'per-thread' },
          { op: 'kernel', name: 'loader-work', duration: '2ms', stream: 'per-thread' },
          { op: 'streamSync', stream: 'per-thread' },
        ],
      },
      {
        name: 'worker',
        ops: [
          { op: 'hostWork', name: 'prepare', duration: '200us' },
          { op: 'streamWait', event: 'loaded', stream: 'per-thread' },
          { op: 'kernel', name: 'worker-work', duration: '1ms', stream: 'per-thread' },
          { op: 'hostFunc', name: 'callback', duration: '100us', stream: 'per-thread' },
          { op: 'streamSync', stream: 'per-thread' },
        ],
      },
    ],
  };
}
