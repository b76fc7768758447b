import type { WorkloadOpInput } from '../schema.ts';
import type { PresetDefinition } from './preset-types.ts';
import { bool, num, str } from './preset-types.ts';

// Lessons about the default streams, cross-stream dependencies, priorities, allocation and graphs.

export const defaultStream: PresetDefinition = {
  name: 'default-stream',
  title: 'Legacy default stream barrier vs non-blocking vs per-thread',
  description:
    'Rounds of kernels on several streams, long and short in turn, with one small kernel on the default ' +
    'stream per round. On the legacy default stream that kernel waits for every blocking stream and they all ' +
    'wait for it, so each round lasts as long as its longest kernel; non-blocking streams or the per-thread ' +
    'default stream remove the barrier and the short kernels make up for the long ones.',
  params: [
    {
      name: 'mode',
      type: 'enum',
      default: 'non-blocking',
      options: ['legacy', 'non-blocking', 'per-thread'],
      description:
        'legacy: blocking streams + legacy default stream; non-blocking: streams created non-blocking; ' +
        'per-thread: default-stream work on the per-thread default stream',
    },
    { name: 'streams', type: 'int', default: 4, min: 2, max: 32, description: 'Worker streams' },
    {
      name: 'kernelUs',
      type: 'number',
      default: 200,
      min: 1,
      max: 1e6,
      description: 'Short worker kernel (µs); long ones take 3×',
    },
    {
      name: 'rounds',
      type: 'int',
      default: 4,
      min: 1,
      max: 100,
      description: 'Rounds of worker kernels',
    },
  ],
  pitfallParam: 'mode',
  build(args) {
    const mode = str(args, 'mode');
    const streams = num(args, 'streams');
    const kernelUs = num(args, 'kernelUs');
    return {
      name: `default-stream (${mode})`,
      streams: [
        { name: 's', count: streams, type: mode === 'non-blocking' ? 'non-blocking' : 'blocking' },
      ],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'repeat',
              count: num(args, 'rounds'),
              var: 'r',
              ops: [
                {
                  op: 'repeat',
                  count: streams,
                  ops: [
                    {
                      op: 'kernel',
                      name: 'work',
                      // long (3×) and short in turn, shifted by one from stream to stream
                      duration: `(1 + 2 * ((i + r) % 2)) * ${kernelUs}us`,
                      grid: 16,
                      stream: 's[i]',
                    },
                  ],
                },
                {
                  op: 'kernel',
                  name: 'bookkeeping',
                  duration: '20us',
                  grid: 1,
                  stream: mode === 'per-thread' ? 'per-thread' : 'legacy',
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

export const eventsVsDeviceSync: PresetDefinition = {
  name: 'events-vs-device-sync',
  title: 'Events for cross-stream dependencies vs device sync',
  description:
    "A consumer stream needs a producer stream's result while a long independent kernel runs on a third. " +
    'cudaDeviceSynchronize stalls the host and drains every stream; an event record plus cudaStreamWaitEvent ' +
    'orders just the two streams.',
  params: [
    {
      name: 'dependency',
      type: 'enum',
      default: 'event',
      options: ['event', 'device-sync'],
      description: 'How the consumer waits for the producer',
    },
    {
      name: 'rounds',
      type: 'int',
      default: 4,
      min: 1,
      max: 1000,
      description: 'Producer/consumer rounds',
    },
    {
      name: 'kernelUs',
      type: 'number',
      default: 300,
      min: 1,
      max: 1e6,
      description: 'Producer and consumer kernel time (µs)',
    },
  ],
  pitfallParam: 'dependency',
  build(args) {
    const kernelUs = num(args, 'kernelUs');
    const useEvent = str(args, 'dependency') === 'event';
    const link: WorkloadOpInput[] = useEvent
      ? [
          { op: 'eventRecord', event: 'produced', stream: 'producer' },
          { op: 'streamWait', event: 'produced', stream: 'consumer' },
        ]
      : [{ op: 'deviceSync' }];
    return {
      name: `events-vs-device-sync (${str(args, 'dependency')})`,
      streams: [
        { name: 'producer', type: 'non-blocking' },
        { name: 'consumer', type: 'non-blocking' },
        { name: 'background', type: 'non-blocking' },
      ],
      events: [{ name: 'produced' }],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'kernel',
              name: 'background',
              duration: `${num(args, 'rounds') * kernelUs * 2}us`,
              grid: 8,
              stream: 'background',
            },
            {
              op: 'repeat',
              count: num(args, 'rounds'),
              ops: [
                {
                  op: 'kernel',
                  name: 'produce[{i}]',
                  duration: `${kernelUs}us`,
                  grid: 8,
                  stream: 'producer',
                },
                ...link,
                {
                  op: 'kernel',
                  name: 'consume[{i}]',
                  duration: `${kernelUs}us`,
                  grid: 8,
                  stream: 'consumer',
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

export const priorities: PresetDefinition = {
  name: 'priorities',
  title: 'Stream priorities for a latency-critical kernel',
  description:
    'Big kernels keep the GPU full while small urgent kernels arrive. Without priority an urgent kernel ' +
    'waits behind every queued block; on a high-priority stream its blocks go first as soon as SMs free up.',
  params: [
    {
      name: 'usePriority',
      type: 'bool',
      default: true,
      description: 'Put the urgent kernels on a high-priority stream',
    },
    {
      name: 'bigBlocks',
      type: 'int',
      default: 4224,
      min: 1,
      max: 1_000_000,
      description: 'Blocks of each big kernel (many waves)',
    },
    {
      name: 'bigKernels',
      type: 'int',
      default: 4,
      min: 1,
      max: 1000,
      description: 'Big kernels queued',
    },
    {
      name: 'urgent',
      type: 'int',
      default: 4,
      min: 1,
      max: 1000,
      description: 'Urgent kernels, one per period',
    },
  ],
  pitfallParam: 'usePriority',
  build(args) {
    return {
      name: `priorities (${bool(args, 'usePriority') ? 'high priority' : 'same priority'})`,
      streams: [
        { name: 'bulk', type: 'non-blocking', priority: 0 },
        { name: 'urgent', type: 'non-blocking', priority: bool(args, 'usePriority') ? -1 : 0 },
      ],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'repeat',
              count: num(args, 'bigKernels'),
              ops: [
                {
                  op: 'kernel',
                  name: 'bulk[{i}]',
                  duration: '100us',
                  grid: num(args, 'bigBlocks'),
                  block: 256,
                  stream: 'bulk',
                },
              ],
            },
            {
              op: 'repeat',
              count: num(args, 'urgent'),
              ops: [
                { op: 'hostWork', name: 'wait for request', duration: '300us' },
                { op: 'kernel', name: 'urgent[{i}]', duration: '20us', grid: 32, stream: 'urgent' },
              ],
            },
            { op: 'deviceSync' },
          ],
        },
      ],
    };
  },
};

export const mallocInLoop: PresetDefinition = {
  name: 'malloc-in-loop',
  title: 'cudaMalloc/cudaFree vs cudaMallocAsync in a loop',
  description:
    'A scratch buffer allocated and freed every iteration. cudaMalloc and cudaFree synchronize the device, ' +
    'so each iteration drains the GPU; cudaMallocAsync/cudaFreeAsync are stream-ordered and do not.',
  params: [
    {
      name: 'allocator',
      type: 'enum',
      default: 'malloc-async',
      options: ['malloc', 'malloc-async'],
      description: 'Allocation API used in the loop',
    },
    {
      name: 'iterations',
      type: 'int',
      default: 16,
      min: 1,
      max: 10_000,
      description: 'Loop iterations',
    },
    {
      name: 'scratch',
      type: 'size',
      default: '64MiB',
      min: 1,
      max: 16 * 1024 ** 3,
      description: 'Scratch buffer size',
    },
  ],
  pitfallParam: 'allocator',
  build(args) {
    const isAsync = str(args, 'allocator') === 'malloc-async';
    return {
      name: `malloc-in-loop (${str(args, 'allocator')})`,
      buffers: [
        {
          name: 'scratch',
          kind: isAsync ? 'stream-ordered' : 'device',
          size: num(args, 'scratch'),
        },
      ],
      streams: [{ name: 's', type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'repeat',
              count: num(args, 'iterations'),
              ops: [
                isAsync
                  ? { op: 'malloc', buffer: 'scratch', async: true, stream: 's' }
                  : { op: 'malloc', buffer: 'scratch' },
                { op: 'memset', dst: 'scratch', stream: 's' },
                { op: 'kernel', name: 'use scratch', duration: '200us', grid: 64, stream: 's' },
                isAsync
                  ? { op: 'free', buffer: 'scratch', async: true, stream: 's' }
                  : { op: 'free', buffer: 'scratch' },
              ],
            },
            { op: 'streamSync', stream: 's' },
          ],
        },
      ],
    };
  },
};

export const graphs: PresetDefinition = {
  name: 'graphs',
  title: 'CUDA graphs vs many small launches',
  description:
    'Steps of many tiny kernels are bound by launch overhead: the GPU idles between them. Capturing a step ' +
    'into a CUDA graph once and launching it replaces many launches by one.',
  params: [
    {
      name: 'useGraph',
      type: 'bool',
      default: true,
      description: 'Capture one step into a graph and launch it',
    },
    { name: 'steps', type: 'int', default: 20, min: 1, max: 10_000, description: 'Steps' },
    {
      name: 'kernelsPerStep',
      type: 'int',
      default: 20,
      min: 1,
      max: 1000,
      description: 'Small kernels per step',
    },
    {
      name: 'kernelUs',
      type: 'number',
      default: 1,
      min: 0.1,
      max: 1e4,
      description: 'Time per small kernel (µs)',
    },
  ],
  pitfallParam: 'useGraph',
  build(args) {
    const step: WorkloadOpInput = {
      op: 'repeat',
      count: num(args, 'kernelsPerStep'),
      var: 'k',
      ops: [
        {
          op: 'kernel',
          name: 'tiny{k}',
          duration: `${num(args, 'kernelUs')}us`,
          grid: 8,
          stream: 's',
        },
      ],
    };
    const ops: WorkloadOpInput[] = bool(args, 'useGraph')
      ? [
          { op: 'graph', name: 'step', stream: 's', ops: [step] },
          { op: 'graphLaunch', graph: 'step', count: num(args, 'steps'), stream: 's' },
        ]
      : [{ op: 'repeat', count: num(args, 'steps'), ops: [step] }];
    return {
      name: `graphs (${bool(args, 'useGraph') ? 'graph' : 'launches'})`,
      streams: [{ name: 's', type: 'non-blocking' }],
      threads: [{ name: 'main', ops: [...ops, { op: 'streamSync', stream: 's' }] }],
    };
  },
};
