import type { WorkloadOpInput } from '../schema.ts';
import type { PresetDefinition } from './preset-types.ts';
import { bool, num, str } from './preset-types.ts';

// Lessons about getting copies and kernels to overlap.

const chunkedCopyKernel = (
  chunkBytes: number,
  kernelUs: number,
  stream: string,
  host = 'h',
): WorkloadOpInput[] => [
  {
    op: 'copy',
    src: host,
    dst: 'd',
    srcOffset: `i * ${chunkBytes}`,
    dstOffset: `i * ${chunkBytes}`,
    bytes: chunkBytes,
    stream,
  },
  { op: 'kernel', name: 'process[{i}]', duration: `${kernelUs}us`, grid: 64, block: 256, stream },
  {
    op: 'copy',
    src: 'd',
    dst: host,
    srcOffset: `i * ${chunkBytes}`,
    dstOffset: `i * ${chunkBytes}`,
    bytes: chunkBytes,
    stream,
  },
];

export const pipeline: PresetDefinition = {
  name: 'pipeline',
  title: 'Sequential vs chunked pipeline',
  description:
    'Copy in, process and copy out a buffer. One chunk on one stream is sequential; many chunks over several ' +
    'streams let the copy of one chunk overlap the kernel of another.',
  params: [
    {
      name: 'chunks',
      type: 'int',
      default: 8,
      min: 1,
      max: 256,
      description: 'Chunks the buffer is split into (1 = sequential)',
    },
    {
      name: 'streams',
      type: 'int',
      default: 4,
      min: 1,
      max: 32,
      description: 'Streams the chunks rotate over',
    },
    {
      name: 'size',
      type: 'size',
      default: '64MiB',
      min: 4096,
      max: 8 * 1024 ** 3,
      description: 'Bytes moved each way',
    },
    {
      name: 'kernelUs',
      type: 'number',
      default: 2000,
      min: 1,
      max: 1e6,
      description: 'Total kernel time over all chunks (µs)',
    },
  ],
  pitfallParam: 'chunks',
  build(args) {
    const chunks = num(args, 'chunks');
    const streams = Math.min(num(args, 'streams'), chunks);
    const size = num(args, 'size');
    const chunkBytes = Math.floor(size / chunks);
    return {
      name: `pipeline (${chunks} ${chunks === 1 ? 'chunk' : 'chunks'})`,
      buffers: [
        { name: 'h', kind: 'host-pinned', size },
        { name: 'd', kind: 'device', size },
      ],
      streams: [{ name: 's', count: streams, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'repeat',
              count: chunks,
              ops: chunkedCopyKernel(
                chunkBytes,
                num(args, 'kernelUs') / chunks,
                `s[i % ${streams}]`,
              ),
            },
            { op: 'deviceSync' },
          ],
        },
      ],
    };
  },
};

export const issueOrder: PresetDefinition = {
  name: 'issue-order',
  title: 'Depth-first vs breadth-first issue order',
  description:
    'The same chunks issued stream by stream (depth-first) or stage by stage (breadth-first). On hardware with ' +
    'one work queue per engine the order decides what overlaps; with Hyper-Q it matters much less.',
  params: [
    {
      name: 'order',
      type: 'enum',
      default: 'breadth-first',
      options: ['depth-first', 'breadth-first'],
      description: 'Issue order',
    },
    {
      name: 'streams',
      type: 'int',
      default: 4,
      min: 1,
      max: 32,
      description: 'Streams, one chunk each',
    },
    {
      name: 'size',
      type: 'size',
      default: '64MiB',
      min: 4096,
      max: 8 * 1024 ** 3,
      description: 'Bytes moved each way',
    },
    {
      name: 'kernelUs',
      type: 'number',
      default: 300,
      min: 1,
      max: 1e6,
      description: 'Kernel time per chunk (µs)',
    },
  ],
  pitfallParam: 'order',
  build(args) {
    const streams = num(args, 'streams');
    const size = num(args, 'size');
    const chunkBytes = Math.floor(size / streams);
    const [h2d, k, d2h] = chunkedCopyKernel(chunkBytes, num(args, 'kernelUs'), 's[i]') as [
      WorkloadOpInput,
      WorkloadOpInput,
      WorkloadOpInput,
    ];
    const loop = (ops: WorkloadOpInput[]): WorkloadOpInput => ({
      op: 'repeat',
      count: streams,
      ops,
    });
    const body =
      str(args, 'order') === 'depth-first'
        ? [loop([h2d, k, d2h])]
        : [loop([h2d]), loop([k]), loop([d2h])];
    return {
      name: `issue-order (${str(args, 'order')})`,
      buffers: [
        { name: 'h', kind: 'host-pinned', size },
        { name: 'd', kind: 'device', size },
      ],
      streams: [{ name: 's', count: streams }],
      threads: [{ name: 'main', ops: [...body, { op: 'deviceSync' }] }],
    };
  },
};

export const pinnedVsPageable: PresetDefinition = {
  name: 'pinned-vs-pageable',
  title: 'Pinned vs pageable host memory',
  description:
    'cudaMemcpyAsync from pageable memory stages through a bounce buffer and blocks the host, so the next ' +
    'stream cannot be fed and nothing overlaps. Pinned memory makes the copy truly asynchronous.',
  params: [
    {
      name: 'hostMemory',
      type: 'enum',
      default: 'pinned',
      options: ['pinned', 'pageable'],
      description: 'Kind of host buffer',
    },
    {
      name: 'chunks',
      type: 'int',
      default: 4,
      min: 1,
      max: 64,
      description: 'Chunks, one stream each',
    },
    {
      name: 'size',
      type: 'size',
      default: '64MiB',
      min: 4096,
      max: 8 * 1024 ** 3,
      description: 'Bytes moved each way',
    },
    {
      name: 'kernelUs',
      type: 'number',
      default: 1000,
      min: 1,
      max: 1e6,
      description: 'Kernel time per chunk (µs)',
    },
  ],
  pitfallParam: 'hostMemory',
  build(args) {
    const chunks = num(args, 'chunks');
    const size = num(args, 'size');
    const pageable = str(args, 'hostMemory') === 'pageable';
    return {
      name: `pinned-vs-pageable (${str(args, 'hostMemory')})`,
      buffers: [
        { name: 'h', kind: pageable ? 'host-pageable' : 'host-pinned', size },
        { name: 'd', kind: 'device', size },
      ],
      streams: [{ name: 's', count: chunks, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'repeat',
              count: chunks,
              ops: chunkedCopyKernel(Math.floor(size / chunks), num(args, 'kernelUs'), 's[i]'),
            },
            { op: 'deviceSync' },
          ],
        },
      ],
    };
  },
};

export const streamCount: PresetDefinition = {
  name: 'stream-count',
  title: 'Number of streams vs speedup',
  description:
    'A fixed set of kernels that each fill a fraction of the GPU, spread over N streams. Speedup grows with ' +
    'N until the kernels fill the GPU (or the hardware queues), then flattens.',
  params: [
    {
      name: 'streams',
      type: 'int',
      default: 8,
      min: 1,
      max: 64,
      description: 'Streams the kernels rotate over (1 = serial)',
    },
    {
      name: 'kernels',
      type: 'int',
      default: 32,
      min: 1,
      max: 4096,
      description: 'Kernels in total',
    },
    {
      name: 'blocks',
      type: 'int',
      default: 132,
      min: 1,
      max: 1_000_000,
      description: 'Blocks per kernel (256 threads each)',
    },
    {
      name: 'kernelUs',
      type: 'number',
      default: 200,
      min: 1,
      max: 1e6,
      description: 'Time each block spins (µs)',
    },
  ],
  pitfallParam: 'streams',
  build(args) {
    const streams = num(args, 'streams');
    return {
      name: `stream-count (${streams} streams)`,
      streams: [{ name: 's', count: streams, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'repeat',
              count: num(args, 'kernels'),
              ops: [
                {
                  op: 'kernel',
                  name: 'k{i}',
                  duration: `${num(args, 'kernelUs')}us`,
                  grid: num(args, 'blocks'),
                  block: 256,
                  stream: `s[i % ${streams}]`,
                },
              ],
            },
            { op: 'deviceSync' },
          ],
        },
      ],
    };
  },
};

export const overSync: PresetDefinition = {
  name: 'over-sync',
  title: 'Over-synchronization vs one sync',
  description:
    'Synchronizing after every chunk drains the GPU each time: the host waits, then the GPU waits for the ' +
    'host. One synchronization at the end keeps the pipeline full.',
  params: [
    {
      name: 'syncEveryChunk',
      type: 'bool',
      default: false,
      description: 'cudaStreamSynchronize after every chunk',
    },
    { name: 'chunks', type: 'int', default: 16, min: 1, max: 1024, description: 'Chunks' },
    {
      name: 'kernelUs',
      type: 'number',
      default: 200,
      min: 1,
      max: 1e6,
      description: 'Kernel time per chunk (µs)',
    },
    {
      name: 'hostUs',
      type: 'number',
      default: 100,
      min: 0,
      max: 1e6,
      description: 'Host work per chunk (µs)',
    },
  ],
  pitfallParam: 'syncEveryChunk',
  build(args) {
    const chunk: WorkloadOpInput[] = [
      { op: 'hostWork', name: 'prepare[{i}]', duration: `${num(args, 'hostUs')}us` },
      {
        op: 'copy',
        src: 'h',
        dst: 'd',
        srcOffset: 'i * 1MiB',
        dstOffset: 'i * 1MiB',
        bytes: '1MiB',
        stream: 's',
      },
      {
        op: 'kernel',
        name: 'step[{i}]',
        duration: `${num(args, 'kernelUs')}us`,
        grid: 128,
        stream: 's',
      },
    ];
    if (bool(args, 'syncEveryChunk')) {
      chunk.push({ op: 'streamSync', stream: 's' });
    }
    const chunks = num(args, 'chunks');
    return {
      name: `over-sync (${bool(args, 'syncEveryChunk') ? 'every chunk' : 'once'})`,
      buffers: [
        { name: 'h', kind: 'host-pinned', size: `${chunks} * 1MiB` },
        { name: 'd', kind: 'device', size: `${chunks} * 1MiB` },
      ],
      streams: [{ name: 's', type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            { op: 'repeat', count: chunks, ops: chunk },
            { op: 'streamSync', stream: 's' },
          ],
        },
      ],
    };
  },
};
