import type { WorkloadInput, WorkloadOpInput } from '@streamscope/workload';

// Tests only: varied workloads from a seed, always the same for the same seed. Two threads
// that record their own event first (so cross-thread waits never deadlock), every stream kind,
// copies of every memory kind, fixed-work and timed kernels, graphs, ranges, loops and
// stream-ordered allocation.

/** A small seeded generator (xorshift32): numbers in [0, 1). */
function generator(seed: number): () => number {
  let x = (seed * 2654435761) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

const streams = ['legacy', 'per-thread', 's[0]', 's[1]', 's[2]', 'n[0]', 'n[1]'] as const;
const asyncStreams = ['s[0]', 's[1]', 's[2]', 'n[0]', 'n[1]'] as const;

/** The workload of `seed`: 5 to 34 top-level ops on the main thread, fewer on the side one. */
export function randomSpec(seed: number): WorkloadInput {
  const random = generator(seed);
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const kernel = (stream: string): WorkloadOpInput =>
    random() < 0.7
      ? {
          op: 'kernel',
          name: `k${int(0, 3)}`,
          duration: `${int(1, 200)}us`,
          grid: int(1, 3000),
          block: pick([64, 256, 1024]),
          stream,
        }
      : { op: 'kernel', name: 'w', iterations: int(1000, 50_000), grid: int(1, 600), stream };
  const op = (thread: 'main' | 'side'): WorkloadOpInput[] => {
    const own = thread === 'main' ? 'e[0]' : 'e[1]';
    switch (int(0, 17)) {
      case 0:
      case 1:
      case 2:
        return [kernel(pick(streams))];
      case 3:
        return [{ op: 'copy', src: 'h', dst: 'd', bytes: '256KiB', stream: pick(asyncStreams) }];
      case 4:
        return [
          { op: 'copy', src: 'd', dst: pick(['h', 'p']), bytes: '1MiB', stream: pick(streams) },
        ];
      case 5:
        return [
          {
            op: 'copy',
            src: pick(['h', 'p']),
            dst: 'd',
            bytes: '64KiB',
            async: false,
            stream: pick(['legacy', 'per-thread']),
          },
        ];
      case 6:
        return [{ op: 'copy', src: 'd', dst: 'd2', bytes: '2MiB', stream: pick(streams) }];
      case 7:
        return [{ op: 'memset', dst: pick(['d', 'h']), bytes: '1MiB', stream: pick(streams) }];
      case 8:
        return [{ op: 'eventRecord', event: own, stream: pick(streams) }];
      case 9:
        return [{ op: 'streamWait', event: pick(['e[0]', 'e[1]']), stream: pick(streams) }];
      case 10:
        return [{ op: 'eventSync', event: pick(['e[0]', 'e[1]']) }];
      case 11:
        return [
          random() < 0.5 ? { op: 'streamSync', stream: pick(streams) } : { op: 'deviceSync' },
        ];
      case 12:
        return [{ op: 'hostWork', duration: `${int(1, 60)}us` }];
      case 13:
        return [{ op: 'hostFunc', name: 'cb', duration: `${int(1, 40)}us`, stream: pick(streams) }];
      case 14:
        return [
          {
            op: 'range',
            name: `r${int(0, 2)}`,
            ops: [kernel(pick(streams)), kernel(pick(streams))],
          },
        ];
      case 15:
        return [
          {
            op: 'repeat',
            count: int(2, 5),
            ops: [
              kernel('s[i % 3]'),
              { op: 'copy', src: 'h', dst: 'd', bytes: '(i + 1) * 16KiB', stream: 'n[i % 2]' },
            ],
          },
        ];
      case 16:
        return thread === 'main'
          ? [{ op: 'graphLaunch', graph: 'g', count: int(1, 3), stream: pick(asyncStreams) }]
          : [kernel('per-thread')];
      default: {
        const stream = pick(asyncStreams);
        return thread === 'main'
          ? [
              { op: 'malloc', buffer: 'so', async: true, stream },
              kernel(stream),
              { op: 'free', buffer: 'so', async: true, stream },
            ]
          : [{ op: 'hostWork', duration: '3us' }];
      }
    }
  };
  const main: WorkloadOpInput[] = [
    { op: 'eventRecord', event: 'e[0]', stream: pick(streams) },
    {
      op: 'graph',
      name: 'g',
      stream: 's[0]',
      ops: [
        kernel('s[0]'),
        { op: 'memset', dst: 'd', bytes: '512KiB', stream: 's[0]' },
        kernel('s[0]'),
      ],
    },
  ];
  const side: WorkloadOpInput[] = [{ op: 'eventRecord', event: 'e[1]', stream: 'per-thread' }];
  for (let k = int(5, 34); k > 0; k--) {
    main.push(...op('main'));
  }
  for (let k = int(0, 12); k > 0; k--) {
    side.push(...op('side'));
  }
  main.push({ op: 'deviceSync' });
  return {
    name: `random ${seed}`,
    buffers: [
      { name: 'h', kind: 'host-pinned', size: '4MiB' },
      { name: 'p', kind: 'host-pageable', size: '4MiB' },
      { name: 'd', kind: 'device', size: '4MiB' },
      { name: 'd2', kind: 'device', size: '4MiB' },
      { name: 'so', kind: 'stream-ordered', size: '1MiB' },
    ],
    streams: [
      { name: 's', count: 3 },
      { name: 'n', count: 2, type: 'non-blocking', priority: -1 },
    ],
    events: [{ name: 'e', count: 2 }],
    threads: [
      { name: 'main', ops: main },
      { name: 'side', ops: side },
    ],
  };
}
