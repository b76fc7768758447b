import type { WorkloadOpInput } from '../schema.ts';
import { formatBytes } from '@streamscope/trace';
import type { PresetArgs, PresetDefinition } from './preset-types.ts';
import { num, str } from './preset-types.ts';

/** Iterations per thread of the blog kernel: one element's sinf/cosf/sqrtf, in calibrated units. */
export const blogKernelIterations = 1000;
const blockSize = 256;

/** The blog workload with the size and the streams set (16 MiB over 4 by default). */
function describeBlog(args: PresetArgs): string {
  const streams = num(args, 'streams');
  return (
    `The blog workload: ${formatBytes(num(args, 'size'))} of pinned floats through H2D, a kernel and D2H, ` +
    `run blocking (sequential) or split over ${streams} ${streams === 1 ? 'stream' : 'streams'} issued ` +
    'depth-first (version 1) or breadth-first (version 2). On one copy engine depth-first cannot ' +
    'overlap; on Fermi breadth-first delays the D2H copies behind all kernels.'
  );
}

/**
 * The NVIDIA blog "How to Overlap Data Transfers in CUDA C/C++" (research/viewer-anchors.md
 * §5): n floats in pinned memory, nStreams streams, H2D ≈ kernel ≈ D2H. `sequential` is the
 * blocking version; `depth-first` is the blog's version 1, `breadth-first` its version 2.
 */
export const overlapBlog: PresetDefinition = {
  name: 'overlap-blog',
  title: 'NVIDIA blog: overlap data transfers',
  description: describeBlog,
  params: [
    {
      name: 'variant',
      type: 'enum',
      default: 'breadth-first',
      options: ['sequential', 'depth-first', 'breadth-first'],
      description: 'How the work is issued',
    },
    {
      name: 'streams',
      type: 'int',
      default: 4,
      min: 1,
      max: 32,
      description: 'Streams (and chunks) of the async versions',
    },
    {
      name: 'size',
      type: 'size',
      default: '16MiB',
      min: 4096,
      max: 4 * 1024 ** 3,
      description: 'Bytes of floats moved each way',
    },
  ],
  pitfallParam: 'variant',
  build(args) {
    const variant = str(args, 'variant');
    const streams = num(args, 'streams');
    const bytes = num(args, 'size');
    const elems = Math.floor(bytes / 4);
    const chunkElems = Math.floor(elems / streams);
    if (chunkElems % blockSize !== 0 || elems % streams !== 0) {
      throw new RangeError(
        `overlap-blog: size/4 must split into ${streams} chunks of whole ${blockSize}-thread blocks`,
      );
    }
    const chunkBytes = chunkElems * 4;
    const kernel = (grid: number, stream?: string): WorkloadOpInput => ({
      op: 'kernel',
      name: 'kernel',
      iterations: blogKernelIterations,
      grid,
      block: blockSize,
      ...(stream === undefined ? {} : { stream }),
    });
    const h2d = (stream: string): WorkloadOpInput => ({
      op: 'copy',
      src: 'a',
      dst: 'd_a',
      srcOffset: `i * ${chunkBytes}`,
      dstOffset: `i * ${chunkBytes}`,
      bytes: chunkBytes,
      stream,
    });
    const d2h = (stream: string): WorkloadOpInput => ({
      op: 'copy',
      src: 'd_a',
      dst: 'a',
      srcOffset: `i * ${chunkBytes}`,
      dstOffset: `i * ${chunkBytes}`,
      bytes: chunkBytes,
      stream,
    });
    const loop = (ops: WorkloadOpInput[]): WorkloadOpInput => ({
      op: 'repeat',
      count: streams,
      var: 'i',
      ops,
    });
    let body: WorkloadOpInput[];
    if (variant === 'sequential') {
      body = [
        { op: 'copy', src: 'a', dst: 'd_a', async: false },
        kernel(elems / blockSize),
        { op: 'copy', src: 'd_a', dst: 'a', async: false },
      ];
    } else if (variant === 'depth-first') {
      body = [
        loop([h2d('stream[i]'), kernel(chunkElems / blockSize, 'stream[i]'), d2h('stream[i]')]),
      ];
    } else {
      body = [
        loop([h2d('stream[i]')]),
        loop([kernel(chunkElems / blockSize, 'stream[i]')]),
        loop([d2h('stream[i]')]),
      ];
    }
    return {
      name: `overlap-blog (${variant})`,
      description: describeBlog(args),
      buffers: [
        { name: 'a', kind: 'host-pinned', size: bytes },
        { name: 'd_a', kind: 'device', size: bytes },
      ],
      streams: [{ name: 'stream', count: streams }],
      events: [{ name: 'startEvent' }, { name: 'stopEvent' }],
      threads: [
        {
          name: 'main',
          ops: [
            { op: 'eventRecord', event: 'startEvent' },
            { op: 'range', name: variant, ops: body },
            { op: 'eventRecord', event: 'stopEvent' },
            { op: 'eventSync', event: 'stopEvent' },
          ],
        },
      ],
    };
  },
};
