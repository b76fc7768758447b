import type { FirstUseCall } from '@streamscope/simulator';
import { firstUseCalls } from '@streamscope/simulator';
import type { WorkloadInput, WorkloadOpInput } from '@streamscope/workload';

/** What a benchmark's workload depends on: the shape of the GPU it runs on. */
export interface BenchmarkDevice {
  readonly smCount: number;
}

/**
 * One micro-benchmark of `streamscope calibrate`: a small workload in the spec (so the same
 * code runs on the simulator for a self-check) and the profile parameters it measures.
 */
export interface Benchmark {
  readonly name: string;
  /** Profile parameters read from its trace (see readings.ts). */
  readonly measures: readonly string[];
  workload(device: BenchmarkDevice): WorkloadInput;
}

const MiB = 1024 * 1024;

/** Sizes of the pageable-copy benchmark, bytes: the slope gives the staging rate. */
export const pageableSizes = [256 * 1024, MiB, 4 * MiB, 16 * MiB, 64 * MiB] as const;
/** Sizes of the cudaMalloc / cudaFree benchmark, bytes. */
export const mallocSizes = [MiB, 16 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB] as const;
/** Nodes per graph of the graph benchmark. */
export const graphNodeCounts = [1, 10, 40] as const;
/** Block durations of the priority benchmark, µs: the urgent kernel waits for a block to end. */
export const priorityBlockUs = [50, 100, 200] as const;
/** Urgent kernels of the lesson's shape issued 70 µs apart into one bulk kernel. */
export const priorityLessonProbes = 6;
/** Blocks of 256 threads per SM of the occupancy benchmark's one-wave kernels. */
export const occupancyBlocksPerSm = [1, 2, 4, 8] as const;
/** Streams the hardware-queue benchmark pairs with stream 0. */
export const queueProbeStreams = 16;
/** The first-use benchmark's rounds of one call of each kind (the first round pays the cost). */
export const firstUseRounds = 5;
/** The API call the first-use benchmark makes for each of profile.firstUseNs. */
export const firstUseApiNames: Readonly<Record<FirstUseCall, string>> = {
  launchKernel: 'cudaLaunchKernel',
  memcpy: 'cudaMemcpyAsync',
  memset: 'cudaMemsetAsync',
  eventRecord: 'cudaEventRecord',
  streamWait: 'cudaStreamWaitEvent',
  malloc: 'cudaMalloc',
  mallocAsync: 'cudaMallocAsync',
};

const kernel = (
  name: string,
  stream: string,
  duration: string,
  grid: number | string = 1,
  block = 32,
): WorkloadOpInput => ({ op: 'kernel', name, duration, grid, block, stream });

const sync = (stream: string): WorkloadOpInput => ({ op: 'streamSync', stream });

const repeat = (count: number, ops: WorkloadOpInput[], v = 'i'): WorkloadOpInput => ({
  op: 'repeat',
  count,
  var: v,
  ops,
});

const oneStream = (name: string, ops: WorkloadOpInput[], extra: Partial<WorkloadInput> = {}) =>
  ({
    name,
    streams: [{ name: 's', type: 'non-blocking' }],
    threads: [{ name: 'main', ops }],
    ...extra,
  }) satisfies WorkloadInput;

/** Launches in the launch benchmark's loop: the cuda-graphs lesson's 20 steps of 20 kernels. */
const launchLoopCount = 400;

/** Every benchmark, in the order calibrate runs them. */
export const benchmarks: readonly Benchmark[] = [
  {
    // Back-to-back launches of 1 µs kernels: the GPU waits for the host, so the API calls'
    // durations and the gaps between them are the host cost per launch, and a kernel's start
    // after its call's end is the submit latency. As many launches as the longest lesson loop
    // (cuda-graphs: 400): past ~1 ms the executor's host meets stalls a 100-launch loop had
    // not reached, and read 1-2 µs a launch less than the lesson it predicts
    // (fixtures/runs/launch-host-cost.txt).
    name: 'launch',
    measures: ['firstCallGapNs', 'api.launchKernel', 'hostCallGapNs', 'submitLatencyNs'],
    workload: () =>
      oneStream('calibrate launch', [
        repeat(3, [kernel('warm', 's', '1us'), sync('s')]),
        repeat(launchLoopCount, [kernel('launch', 's', '1us')]),
        sync('s'),
      ]),
  },
  {
    // 30 µs kernels issued faster than they run: the gap between one's end and the next one's
    // start is the stream's back-to-back gap; duration minus 30 µs the timed kernel's offset.
    name: 'stream-gap',
    measures: ['streamGapNs', 'spinOffsetNs'],
    workload: () =>
      oneStream('calibrate stream gap', [
        kernel('warm', 's', '1us'),
        sync('s'),
        repeat(30, [kernel('gap', 's', '30us')]),
        sync('s'),
      ]),
  },
  {
    // One wave of 100 µs blocks at 1, 2, 4, 8 blocks of 256 threads per SM, then four waves:
    // whether a timed block takes longer when its SM is full, and what a wave boundary costs.
    name: 'occupancy',
    measures: ['crowdedStartWarps', 'crowdedStartNsPerWarp'],
    workload: ({ smCount }) =>
      oneStream('calibrate occupancy', [
        kernel('warm', 's', '1us'),
        sync('s'),
        repeat(2, [
          ...occupancyBlocksPerSm.flatMap((b) => [
            kernel(`wave-${b}`, 's', '100us', smCount * b, 256),
            sync('s'),
          ]),
          kernel('waves-4', 's', '100us', smCount * 32, 256),
          sync('s'),
          kernel('waves-4-1024', 's', '100us', smCount * 8, 1024),
          sync('s'),
        ]),
      ]),
  },
  {
    // Fixed-work kernels: one warp alone gives the per-thread rate (slope between two sizes);
    // a full GPU of warps gives the saturation point.
    name: 'work',
    measures: ['workIterationsPerNs', 'workSaturationWarpsPerSm'],
    workload: ({ smCount }) =>
      oneStream('calibrate work', [
        { op: 'kernel', name: 'warm', iterations: 1000, stream: 's' },
        sync('s'),
        repeat(5, [
          { op: 'kernel', name: 'work-small', iterations: 20_000, stream: 's' },
          sync('s'),
          { op: 'kernel', name: 'work-large', iterations: 200_000, stream: 's' },
          sync('s'),
          {
            op: 'kernel',
            name: 'work-full',
            iterations: 50_000,
            grid: smCount * 8,
            block: 256,
            stream: 's',
          },
          sync('s'),
          {
            op: 'kernel',
            name: 'work-quarter',
            iterations: 50_000,
            grid: smCount * 2,
            block: 256,
            stream: 's',
          },
          sync('s'),
        ]),
      ]),
  },
  {
    // Pinned copies each way, device to device and a memset, 64 MiB, alone; and 4 KiB copies,
    // whose time is the engine's fixed cost.
    name: 'copies',
    measures: [
      'copyBandwidthBytesPerS.htodPinned',
      'copyBandwidthBytesPerS.dtohPinned',
      'copyBandwidthBytesPerS.dtod',
      'memsetBytesPerS',
      'copyFixedNs',
    ],
    workload: () =>
      oneStream(
        'calibrate copies',
        [
          repeat(5, [
            { op: 'copy', src: 'h', dst: 'd', bytes: '64MiB', stream: 's' },
            sync('s'),
            { op: 'copy', src: 'd', dst: 'h', bytes: '64MiB', stream: 's' },
            sync('s'),
            { op: 'copy', src: 'd', dst: 'd2', bytes: '64MiB', stream: 's' },
            sync('s'),
            { op: 'memset', dst: 'd', bytes: '64MiB', stream: 's' },
            sync('s'),
            { op: 'copy', src: 'h', dst: 'd', bytes: '4KiB', stream: 's' },
            sync('s'),
            { op: 'copy', src: 'd', dst: 'h', bytes: '4KiB', stream: 's' },
            sync('s'),
          ]),
        ],
        {
          buffers: [
            { name: 'h', kind: 'host-pinned', size: '64MiB' },
            { name: 'd', kind: 'device', size: '64MiB' },
            { name: 'd2', kind: 'device', size: '64MiB' },
          ],
        },
      ),
  },
  {
    // Copies issued together on three streams: whether copies in one direction take turns on
    // one engine or share, and what each direction keeps while the other runs.
    name: 'copy-engines',
    measures: ['memcpyEnginesPerDirection', 'copyEngineGapNs', 'duplexFactor', 'duplexFactorDtoh'],
    workload: () => ({
      name: 'calibrate copy engines',
      buffers: [
        { name: 'h', kind: 'host-pinned', size: '64MiB' },
        { name: 'd', kind: 'device', size: '64MiB' },
      ],
      streams: [{ name: 'c', count: 3, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            repeat(3, [
              repeat(
                3,
                [
                  {
                    op: 'copy',
                    src: 'h',
                    dst: 'd',
                    srcOffset: 'j * 16MiB',
                    dstOffset: 'j * 16MiB',
                    bytes: '16MiB',
                    stream: 'c[j]',
                  },
                ],
                'j',
              ),
              { op: 'deviceSync' },
              repeat(
                3,
                [
                  {
                    op: 'copy',
                    src: 'd',
                    dst: 'h',
                    srcOffset: 'j * 16MiB',
                    dstOffset: 'j * 16MiB',
                    bytes: '16MiB',
                    stream: 'c[j]',
                  },
                ],
                'j',
              ),
              { op: 'deviceSync' },
              { op: 'copy', src: 'h', dst: 'd', bytes: '32MiB', stream: 'c[0]' },
              {
                op: 'copy',
                src: 'd',
                dst: 'h',
                srcOffset: '32MiB',
                dstOffset: '32MiB',
                bytes: '32MiB',
                stream: 'c[1]',
              },
              { op: 'deviceSync' },
            ]),
          ],
        },
      ],
    }),
  },
  {
    // Pageable copies of growing sizes each way (the buffer's pages touched at setup): the
    // slope of time over size is the staging rate, the lead before the engine starts (to the
    // device) or the tail after it ends (to the host) one staging chunk.
    name: 'pageable',
    measures: [
      'copyBandwidthBytesPerS.htodPageable',
      'copyBandwidthBytesPerS.dtohPageable',
      'pageable.chunkBytes',
      'pageable.htodStagingBytesPerS',
      'pageable.dtohStagingBytesPerS',
    ],
    workload: () =>
      oneStream(
        'calibrate pageable',
        [
          // Each copy from its own slice of a 256 MiB buffer, so the host reads memory, not a
          // cache still holding the last copy's bytes.
          ...[0, 1, 2].flatMap((rep) =>
            pageableSizes.flatMap((bytes, k): WorkloadOpInput[] => {
              const at = ((rep * pageableSizes.length + k) % 4) * 64 * MiB;
              return [
                { op: 'copy', src: 'h', dst: 'd', srcOffset: at, bytes, stream: 's' },
                sync('s'),
                { op: 'copy', src: 'd', dst: 'h', dstOffset: at, bytes, stream: 's' },
                sync('s'),
              ];
            }),
          ),
          // Behind a 2 ms kernel on its stream: the host stages ahead while the kernel runs.
          kernel('busy', 's', '2ms'),
          { op: 'copy', src: 'h', dst: 'd', bytes: '16MiB', stream: 's' },
          sync('s'),
          kernel('busy', 's', '2ms'),
          { op: 'copy', src: 'd', dst: 'h', bytes: '16MiB', stream: 's' },
          sync('s'),
        ],
        {
          buffers: [
            { name: 'h', kind: 'host-pageable', size: '256MiB' },
            { name: 'd', kind: 'device', size: '64MiB' },
          ],
        },
      ),
  },
  {
    // cudaMalloc and cudaFree of growing sizes on an idle device (cost against size), then
    // each behind a running kernel (whether it waits for the device), cudaMallocHost, and the
    // stream-ordered allocator's calls.
    name: 'malloc',
    measures: [
      'api.malloc',
      'api.mallocPerGiB',
      'api.free',
      'api.freePerGiB',
      'mallocSyncs',
      'freeSyncs',
      'api.pinBytesPerS',
      'api.mallocAsync',
    ],
    workload: () =>
      oneStream(
        'calibrate malloc',
        [
          kernel('warm', 's', '1us'),
          sync('s'),
          repeat(3, [
            ...mallocSizes.flatMap((_, k): WorkloadOpInput[] => [
              { op: 'malloc', buffer: `m${k}` },
              { op: 'free', buffer: `m${k}` },
            ]),
          ]),
          repeat(3, [
            kernel('before-malloc', 's', '500us'),
            { op: 'malloc', buffer: 'm2' },
            kernel('before-free', 's', '500us'),
            { op: 'free', buffer: 'm2' },
          ]),
          // A scratch buffer used and freed in a loop, as programs (and a lesson) do.
          repeat(5, [
            { op: 'malloc', buffer: 'm2' },
            { op: 'memset', dst: 'm2', stream: 's' },
            kernel('use', 's', '200us', 64),
            { op: 'free', buffer: 'm2' },
          ]),
          repeat(2, [
            { op: 'malloc', buffer: 'p' },
            { op: 'free', buffer: 'p' },
          ]),
          repeat(5, [
            { op: 'malloc', buffer: 'a', async: true, stream: 's' },
            kernel('pooled', 's', '10us'),
            { op: 'free', buffer: 'a', async: true, stream: 's' },
          ]),
          sync('s'),
        ],
        {
          buffers: [
            ...mallocSizes.map((bytes, k) => ({
              name: `m${k}`,
              kind: 'device' as const,
              size: bytes,
            })),
            { name: 'p', kind: 'host-pinned', size: '64MiB' },
            { name: 'a', kind: 'stream-ordered', size: '64MiB' },
          ],
        },
      ),
  },
  {
    // Graphs of 1, 10 and 40 one-µs kernels, each captured once and launched ten times: the
    // instantiate and launch calls against the node count, and the gap between nodes.
    name: 'graph',
    measures: [
      'graphLaunchGapNs',
      'graphCallGapNs',
      'api.graphLaunch',
      'api.graphLaunchPerNode',
      'api.graphInstantiate',
      'api.graphInstantiatePerNode',
      'graphNodeGapNs',
      'graphFirstLaunchExtraNs',
    ],
    workload: () =>
      oneStream('calibrate graph', [
        kernel('warm', 's', '1us'),
        sync('s'),
        ...graphNodeCounts.flatMap((nodes): WorkloadOpInput[] => [
          {
            op: 'graph',
            name: `g${nodes}`,
            stream: 's',
            ops: [repeat(nodes, [kernel(`node-${nodes}`, 's', '1us', 8)])],
          },
          { op: 'graphLaunch', graph: `g${nodes}`, count: 10, stream: 's' },
          sync('s'),
        ]),
        // The lessons' case: 20 nodes launched again and again, once with the GPU waiting for
        // each launch and once with a 2 ms kernel ahead of them (the host running ahead).
        {
          op: 'graph',
          name: 'g20',
          stream: 's',
          ops: [repeat(20, [kernel('node-20', 's', '1us', 8)])],
        },
        { op: 'graphLaunch', graph: 'g20', count: 10, stream: 's' },
        sync('s'),
        kernel('ahead', 's', '2ms'),
        { op: 'graphLaunch', graph: 'g20', count: 10, stream: 's' },
        sync('s'),
        // The same shape with a name per node and the default block (as the graphs lesson).
        {
          op: 'graph',
          name: 'named20',
          stream: 's',
          ops: [
            repeat(
              20,
              [{ op: 'kernel', name: 'named{k}', duration: '1us', grid: 8, stream: 's' }],
              'k',
            ),
          ],
        },
        { op: 'graphLaunch', graph: 'named20', count: 10, stream: 's' },
        sync('s'),
      ]),
  },
  {
    // A GPU full of blocks lasting 50, 100 or 200 µs, and a small urgent kernel issued in the
    // middle, at high priority and at the same priority: how long the urgent kernel waits for
    // running blocks to drain, against the block duration.
    name: 'priority',
    measures: ['priorityWaitShare'],
    workload: ({ smCount }) => ({
      name: 'calibrate priority',
      streams: [
        { name: 'bulk', type: 'non-blocking', priority: 0 },
        { name: 'high', type: 'non-blocking', priority: -1 },
        { name: 'same', type: 'non-blocking', priority: 0 },
      ],
      threads: [
        {
          name: 'main',
          ops: [
            kernel('warm', 'bulk', '1us'),
            { op: 'deviceSync' },
            ...priorityBlockUs.flatMap((us): WorkloadOpInput[] =>
              (['high', 'same'] as const).flatMap((stream): WorkloadOpInput[] => [
                kernel(`bulk-${us}`, 'bulk', `${us}us`, smCount * 32, 256),
                { op: 'hostWork', name: 'wait', duration: `${Math.round(us * 1.5)}us` },
                kernel(`urgent-${stream}-${us}`, stream, '20us', 32),
                { op: 'deviceSync' },
              ]),
            ),
            // The priorities lesson's urgent shape (32 blocks of 256 threads) at six phases of
            // one 100 µs-block kernel at high priority, and once at the same priority; then one
            // block of one warp: how the wait and the urgent kernel's own length split.
            kernel('bulk-lesson', 'bulk', '100us', smCount * 32, 256),
            repeat(priorityLessonProbes, [
              { op: 'hostWork', name: 'wait', duration: '70us' },
              kernel('urgent-lesson-{i}', 'high', '20us', 32, 256),
            ]),
            { op: 'deviceSync' },
            kernel('bulk-lesson-same', 'bulk', '100us', smCount * 32, 256),
            { op: 'hostWork', name: 'wait', duration: '150us' },
            kernel('urgent-same-lesson', 'same', '20us', 32, 256),
            { op: 'deviceSync' },
            kernel('bulk-one', 'bulk', '100us', smCount * 32, 256),
            { op: 'hostWork', name: 'wait', duration: '150us' },
            kernel('urgent-high-one', 'high', '20us', 1, 32),
            { op: 'deviceSync' },
          ],
        },
      ],
    }),
  },
  {
    // Stream 0 holds a long kernel and a short one behind it; a short kernel on stream j is
    // issued next. Where j shares stream 0's hardware queue it waits behind both (a false
    // dependency): the first such j is the number of queues in use.
    name: 'queues',
    measures: ['connections'],
    workload: () => ({
      name: 'calibrate queues',
      streams: [{ name: 'q', count: queueProbeStreams + 1, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            kernel('warm', 'q[0]', '1us'),
            { op: 'deviceSync' },
            repeat(
              queueProbeStreams,
              [
                kernel('long', 'q[0]', '300us'),
                kernel('after-long', 'q[0]', '10us'),
                kernel('probe-{j + 1}', 'q[j + 1]', '10us'),
                { op: 'deviceSync' },
              ],
              'j',
            ),
          ],
        },
      ],
    }),
  },
  {
    // A record on one stream and a wait on another: the calls' host costs, and how long after
    // the producer ends the consumer starts.
    name: 'events',
    measures: ['api.eventRecord', 'api.streamWait', 'eventRecordGapNs', 'eventWaitGapNs'],
    workload: () => ({
      name: 'calibrate events',
      streams: [
        { name: 'a', type: 'non-blocking' },
        { name: 'b', type: 'non-blocking' },
      ],
      events: [{ name: 'e' }],
      threads: [
        {
          name: 'main',
          ops: [
            kernel('warm', 'a', '1us'),
            kernel('warm', 'b', '1us'),
            { op: 'deviceSync' },
            repeat(10, [
              kernel('producer', 'a', '100us'),
              { op: 'eventRecord', event: 'e', stream: 'a' },
              { op: 'streamWait', event: 'e', stream: 'b' },
              kernel('consumer', 'b', '10us'),
              { op: 'deviceSync' },
            ]),
          ],
        },
      ],
    }),
  },
  {
    // One call of each kind per round, after a synchronize that takes the run's own first-call
    // cost: the first round's calls cost more than the same calls after (the runtime loads the
    // kernel module on the first launch, sets up copies, events and the pool on first use).
    name: 'first-use',
    measures: firstUseCalls.map((call) => `firstUseNs.${call}`),
    workload: () => ({
      name: 'calibrate first use',
      streams: [
        { name: 's', type: 'non-blocking' },
        { name: 't', type: 'non-blocking' },
      ],
      events: [{ name: 'e' }],
      buffers: [
        { name: 'h', kind: 'host-pinned', size: '1MiB' },
        { name: 'd', kind: 'device', size: '1MiB' },
        { name: 'm', kind: 'device', size: '1MiB' },
        { name: 'a', kind: 'stream-ordered', size: '1MiB' },
      ],
      threads: [
        {
          name: 'main',
          ops: [
            { op: 'deviceSync' },
            repeat(firstUseRounds, [
              kernel('use', 's', '1us'),
              { op: 'copy', src: 'h', dst: 'd', bytes: '1MiB', stream: 's' },
              { op: 'memset', dst: 'd', stream: 's' },
              { op: 'eventRecord', event: 'e', stream: 's' },
              { op: 'streamWait', event: 'e', stream: 't' },
              { op: 'malloc', buffer: 'm' },
              { op: 'free', buffer: 'm' },
              { op: 'malloc', buffer: 'a', async: true, stream: 's' },
              { op: 'free', buffer: 'a', async: true, stream: 's' },
              { op: 'deviceSync' },
            ]),
          ],
        },
      ],
    }),
  },
  {
    // Copy, kernel, copy on one stream: the gaps where work passes between a copy engine and
    // the SMs.
    name: 'engine-gap',
    measures: ['crossEngineGapNs.toCompute', 'crossEngineGapNs.toCopy', 'api.memcpy'],
    workload: () =>
      oneStream(
        'calibrate engine gap',
        [
          repeat(10, [
            { op: 'copy', src: 'h', dst: 'd', bytes: '1MiB', stream: 's' },
            kernel('after-copy', 's', '20us'),
            { op: 'copy', src: 'd', dst: 'h', bytes: '1MiB', stream: 's' },
            sync('s'),
          ]),
        ],
        {
          buffers: [
            { name: 'h', kind: 'host-pinned', size: '1MiB' },
            { name: 'd', kind: 'device', size: '1MiB' },
          ],
        },
      ),
  },
];
