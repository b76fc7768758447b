import type { WorkloadInput } from './schema.ts';

/**
 * A long, regular workload for speed figures and regression digests: per chunk a copy in, a
 * kernel, an event record, a wait on it from the next stream, and a copy out, rotating over 8
 * non-blocking streams (5 plan ops per chunk).
 */
export function chunkRingWorkload(chunks: number, name = `chunk ring ${chunks}`): WorkloadInput {
  const copy = (src: string, dst: string) => ({
    op: 'copy' as const,
    src,
    dst,
    srcOffset: '(i % 8) * 1MiB',
    dstOffset: '(i % 8) * 1MiB',
    bytes: '64KiB',
    stream: 's[i % 8]',
  });
  return {
    name,
    buffers: [
      { name: 'h', kind: 'host-pinned', size: '8MiB' },
      { name: 'd', kind: 'device', size: '8MiB' },
    ],
    streams: [{ name: 's', count: 8, type: 'non-blocking' }],
    events: [{ name: 'e', count: 8 }],
    threads: [
      {
        name: 'main',
        ops: [
          {
            op: 'repeat',
            count: chunks,
            ops: [
              copy('h', 'd'),
              { op: 'kernel', name: 'step', duration: '5us', grid: 32, stream: 's[i % 8]' },
              { op: 'eventRecord', event: 'e[i % 8]', stream: 's[i % 8]' },
              { op: 'streamWait', event: 'e[i % 8]', stream: 's[(i + 1) % 8]' },
              copy('d', 'h'),
            ],
          },
          { op: 'deviceSync' },
        ],
      },
    ],
  };
}
