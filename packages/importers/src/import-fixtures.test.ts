import { FlowKind, OpFlag, OpKind, saveTrace } from '@streamscope/trace';
import type { Trace } from '@streamscope/trace';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { dumpTrace } from './dump-trace.ts';
import type { ImportSummary } from './summary.ts';
import { importSummary } from './summary.ts';
import { importFixture, readFixture } from './test-support.ts';

const snapshotted = [
  'nsys/2025.3.1/train.json',
  'nsys/2025.3.1/train.sqlite',
  'nsys/2025.3.1/graph.json.gz',
  'nsys/2025.3.1/graph.sqlite.gz',
  'nsys/2025.3.1/graphnode.json.gz',
  'nsys/2025.3.1/multi.sqlite.gz',
  'nsys/older/layout-a-2021.json',
  'nsys/older/layout-c-separate-strings.json',
  'nsys/older/schema-2021.sqlite',
  'nsys/older/schema-2026.sqlite',
  'nsys/handmade/ddp-2gpu.json',
  'nsys/handmade/ddp-2gpu.sqlite',
  'kineto/train.pt.trace.json.gz',
  'kineto/kineto-2021.json',
  'kineto/array-unterminated.json',
  'kineto/epoch-us.json',
  'kineto/two-processes.json',
  'kineto/rocm-hip.json',
  'kineto/syncs.json',
  'chrome/nsys-converted.json',
  'chrome/begin-end.json',
  'broken/truncated.json',
  'broken/dangling-flows.json',
];

describe('imports of the committed fixtures', () => {
  for (const file of snapshotted) {
    it(`imports ${file} to the same normalized dump as before`, async () => {
      const { trace } = await importFixture(file);
      await expect(dumpTrace(trace)).toMatchFileSnapshot(
        `__snapshots__/${file.replace(/\//g, '__')}.txt`,
      );
    });
  }
});

/** What the profiler itself recorded: its complete events counted by category, read with JSON.parse. */
function kinetoCounts(file: string): Partial<ImportSummary['counts']> {
  const bytes = readFixture(file);
  const text = new TextDecoder().decode(file.endsWith('.gz') ? gunzipSync(bytes) : bytes);
  const json = JSON.parse(text) as {
    traceEvents: { ph?: string; cat?: string }[];
  };
  const counts = { kernel: 0, memcpy: 0, memset: 0, sync: 0, api: 0, range: 0 };
  const byCategory: Record<string, keyof typeof counts> = {
    kernel: 'kernel',
    gpu_memcpy: 'memcpy',
    gpu_memset: 'memset',
    cuda_sync: 'sync',
    cuda_runtime: 'api',
    cuda_driver: 'api',
    cpu_op: 'range',
    user_annotation: 'range',
    python_function: 'range',
  };
  for (const e of json.traceEvents) {
    const key = e.ph === 'X' && e.cat !== undefined ? byCategory[e.cat] : undefined;
    if (key !== undefined) {
      counts[key]++;
    }
  }
  return counts;
}

describe("import --summary gives the profiler's own counts", () => {
  for (const file of [
    'kineto/epoch-us.json',
    'kineto/two-processes.json',
    'kineto/rocm-hip.json',
    'kineto/syncs.json',
  ]) {
    it(`counts every event of ${file} as the profiler recorded it`, async () => {
      const { trace } = await importFixture(file);
      expect(importSummary(trace).counts).toMatchObject(kinetoCounts(file));
    });
  }

  it('reads a trace recorded with every profiler option: Python frames, graphs, a side stream', async () => {
    // pt-full.py: record_shapes, profile_memory, with_stack, with_flops, with_modules.
    const file = 'kineto/full.pt.trace.json.gz';
    const { trace, warnings } = await importFixture(file);
    expect(importSummary(trace).counts).toMatchObject(kinetoCounts(file));
    expect(warnings).toEqual([
      'not drawn: 140 allocator events of profile_memory ([memory] instants)',
    ]);
    // Python frames are ranges on the threads that ran them, the CPU ops nested inside them.
    const r = trace.ranges.columns();
    const domainOf = (i: number): string => trace.name(r.domainId[i]!);
    const pythonRanges = Array.from({ length: r.count }, (_, i) => i).filter(
      (i) => domainOf(i) === 'python_function',
    );
    expect(pythonRanges).toHaveLength(1412);
    const deepestPython = Math.max(...pythonRanges.map((i) => r.depth[i]!));
    expect(deepestPython).toBeGreaterThan(10);
    const step = pythonRanges.find((i) => trace.name(r.nameId[i]!) === 'pt-full.py(64): step');
    expect(step).toBeDefined();
    const inStep = Array.from({ length: r.count }, (_, i) => i).filter(
      (i) =>
        domainOf(i) === 'cpu_op' &&
        r.track[i] === r.track[step!] &&
        r.startNs[i]! >= r.startNs[step!]! &&
        r.endNs[i]! <= r.endNs[step!]!,
    );
    expect(inStep.length).toBeGreaterThan(100);
    expect(inStep.every((i) => r.depth[i]! > r.depth[step!]!)).toBe(true);
    // ProfilerStep#N begins inside Python's step() frames and outlives them: it sits right under
    // main(), not under those frames, and no row of a thread's ranges is left empty.
    const profilerStep = Array.from({ length: r.count }, (_, i) => i).find(
      (i) => trace.name(r.nameId[i]!) === 'ProfilerStep#2',
    )!;
    expect(r.depth[profilerStep]).toBe(2);
    const rowsUsed = new Map<number, Set<number>>();
    for (let i = 0; i < r.count; i++) {
      const rows = rowsUsed.get(r.track[i]!) ?? new Set<number>();
      rows.add(r.depth[i]!);
      rowsUsed.set(r.track[i]!, rows);
    }
    for (const [track, rows] of rowsUsed) {
      expect(rows.size, `track ${track}`).toBe(Math.max(...rows) + 1);
    }
    // Each replay of the captured graph: its kernels carry the cudaGraphLaunch's correlation id,
    // and are flagged as graph nodes joined to that launch.
    const ops = trace.ops.columns();
    const launches = new Set<number>();
    for (let i = 0; i < ops.count; i++) {
      if (ops.kind[i] === OpKind.ApiCall && trace.name(ops.nameId[i]!) === 'cudaGraphLaunch') {
        launches.add(ops.correlationId[i]!);
      }
    }
    expect(launches.size).toBe(2);
    let inGraph = 0;
    for (let i = 0; i < ops.count; i++) {
      const graphNode = (ops.flags[i]! & OpFlag.InGraph) !== 0;
      expect(graphNode, `op ${i}`).toBe(
        ops.kind[i] === OpKind.Kernel && launches.has(ops.correlationId[i]!),
      );
      if (graphNode) {
        inGraph++;
        expect(ops.flags[i]! & OpFlag.Orphan).toBe(0);
      }
    }
    expect(inGraph).toBe(10);
    // The side stream's matmuls, on stream 13 beside the default stream 7.
    const streams = new Set(
      trace.tracks.filter((t) => t.kind === 'gpu-stream').map((t) => t.streamId),
    );
    expect([...streams].sort((a, b) => a - b)).toEqual([7, 13]);
  });

  it('joins the launches of a recorded JAX profile to its kernels and copy', async () => {
    const { trace, warnings } = await importFixture('chrome/jax-h200.trace.json.gz');
    expect(warnings).toEqual([]);
    expect(importSummary(trace)).toMatchObject({
      counts: { kernel: 16, memcpy: 1, api: 17, range: 193 },
      gpuStreams: 2,
      devices: 1,
      copyBytes: { DtoH: 4 },
      unknownSizeOps: 0,
    });
    // Every kernel and the copy joined to its launch, on the host thread that made it.
    const launches = flowsOfKind(trace, FlowKind.ApiToGpu);
    expect(launches).toHaveLength(17);
    const ops = trace.ops.columns();
    for (const [from, to] of launches) {
      expect(ops.correlationId[from]).toBe(ops.correlationId[to]);
      expect(trace.tracks[ops.track[from]!]!.kind).toBe('host-thread');
      expect(trace.tracks[ops.track[to]!]!.kind).toBe('gpu-stream');
    }
    // Each kernel's kernel_details: its grid, block, registers and shared memory.
    for (let i = 0; i < ops.count; i++) {
      if (ops.kind[i] === OpKind.Kernel) {
        expect(trace.launches.get(ops.refId[i]!)?.gridX, `op ${i}`).toBeGreaterThan(0);
      }
    }
  });

  it("adds up to the trace's op count, ranges apart, whatever the format", async () => {
    for (const file of [
      'kineto/epoch-us.json',
      'kineto/syncs.json',
      'chrome/nsys-converted.json',
      'nsys/2025.3.1/train.json',
      'nsys/2025.3.1/multi.sqlite.gz',
    ]) {
      const { trace } = await importFixture(file);
      const { range, ...ops } = importSummary(trace).counts;
      const sum = Object.values(ops).reduce((a, b) => a + b, 0);
      expect(sum, file).toBe(trace.ops.count);
      expect(range, file).toBe(trace.ranges.count);
    }
    // The recorded nsys run has event records, which are GPU ops of their own.
    const { trace } = await importFixture('nsys/2025.3.1/train.json');
    expect(importSummary(trace).counts.event).toBeGreaterThan(0);
  });

  it('counts the events of generic Chrome traces by their tracks', async () => {
    const converted = importSummary((await importFixture('chrome/nsys-converted.json')).trace);
    // 2 kernels, "Memcpy HtoD" and "memcpy", 1 Memset on 3 GPU streams; 2 API calls, joined to
    // what they launched by args.correlationId.
    expect(converted).toMatchObject({
      counts: { kernel: 2, memcpy: 2, memset: 1, sync: 0, api: 2, range: 0 },
      gpuStreams: 3,
      hostThreads: 1,
      devices: 2,
      copyBytes: { HtoD: 1048576 },
      unknownSizeOps: 1,
    });
    const pairs = importSummary((await importFixture('chrome/begin-end.json')).trace);
    // 5 B/E pairs and 2 X events: 2 on the GPU stream, 4 ranges on 2 host threads.
    expect(pairs).toMatchObject({
      counts: { kernel: 1, memcpy: 1, range: 4 },
      gpuStreams: 1,
      hostThreads: 2,
      copyBytes: { DtoH: 8192 },
    });
  });
});

function flowsOfKind(trace: Trace, kind: number): [number, number][] {
  const flows = trace.flows.columns();
  const out: [number, number][] = [];
  for (let i = 0; i < flows.count; i++) {
    if (flows.kind[i] === kind) {
      out.push([flows.fromOp[i]!, flows.toOp[i]!]);
    }
  }
  return out;
}

describe('nsys 2025.3.1 exports of one run', () => {
  it('give the same counts from JSON and from SQLite', async () => {
    for (const run of ['train', 'graph', 'graphnode', 'multi']) {
      const ext = run === 'train' ? '' : '.gz';
      const json = importSummary((await importFixture(`nsys/2025.3.1/${run}.json${ext}`)).trace);
      const sqlite = importSummary(
        (await importFixture(`nsys/2025.3.1/${run}.sqlite${ext}`)).trace,
      );
      expect({ ...json, format: '', producer: '' }).toEqual({
        ...sqlite,
        format: '',
        producer: '',
      });
    }
  });

  it('counts a 25,000-kernel run exactly as recorded, in JSON and SQLite alike', async () => {
    const json = importSummary((await importFixture('nsys/2025.3.1/many.json.gz')).trace);
    const sqlite = importSummary((await importFixture('nsys/2025.3.1/many.sqlite.gz')).trace);
    // many.py: 12,000 adds on the default stream, 12,000 multiplies on a side stream, 1 zero_()
    // and two fills from torch.zeros.
    expect(json.counts.kernel).toBe(24003);
    expect(json.counts).toEqual(sqlite.counts);
    expect(json.gpuStreams).toBe(2);
  }, 30_000);

  it('reads the training loop: side stream, pinned copies, NVTX nesting, record→wait links', async () => {
    const { trace, warnings } = await importFixture('nsys/2025.3.1/train.sqlite');
    expect(warnings).toEqual([]);
    const summary = importSummary(trace);
    expect(summary.counts).toMatchObject({
      kernel: 292,
      memcpy: 34,
      memset: 12,
      sync: 44,
      range: 48,
    });
    // streams 7 and 14; the "Context 1 sync" lane holds event synchronizes, not a stream
    expect(summary.gpuStreams).toBe(2);
    expect(trace.devices[0]).toMatchObject({
      name: 'NVIDIA H100 80GB HBM3',
      smCount: 132,
      computeCapability: '9.0',
      copyEngineCount: 3,
    });
    const side = trace.tracks.find((t) => t.kind === 'gpu-stream' && t.streamId === 14);
    expect(side).toMatchObject({ streamType: 'non-blocking', priority: -1 });
    const ops = trace.ops.columns();
    const waits = flowsOfKind(trace, FlowKind.EventRecordToWait);
    expect(waits.length).toBeGreaterThan(0);
    for (const [from, to] of waits) {
      expect(ops.kind[from]).toBe(OpKind.EventRecord);
      expect([OpKind.StreamWait, OpKind.EventSync]).toContain(ops.kind[to]);
      expect(ops.refId[from]).toBe(ops.refId[to]); // same event id
      expect(ops.startNs[from]).toBeLessThanOrEqual(ops.endNs[to]!); // recorded before the wait ended
    }
    // cudaStreamSynchronize arrives as a stream-wait on event 0xFFFFFFFF: a stream sync.
    let streamSyncs = 0;
    for (let i = 0; i < ops.count; i++) {
      if (ops.kind[i] === OpKind.StreamSync) {
        streamSyncs++;
      }
    }
    expect(streamSyncs).toBeGreaterThan(0);
    const ranges = trace.ranges.columns();
    const names = Array.from(
      { length: ranges.count },
      (_, i) => `${trace.name(ranges.nameId[i]!)}@${ranges.depth[i]}`,
    );
    expect(names).toContain('step 0@0');
    expect(names).toContain('forward@1');
  });

  it('draws a CUDA graph launch as one op per launch, not as its kernels', async () => {
    const { trace } = await importFixture('nsys/2025.3.1/graph.json.gz');
    const ops = trace.ops.columns();
    let graphs = 0;
    for (let i = 0; i < ops.count; i++) {
      if (ops.kind[i] === OpKind.GraphLaunch) {
        graphs++;
        expect(trace.name(ops.nameId[i]!)).toMatch(/^CUDA graph \d+$/);
        expect(ops.flags[i]! & OpFlag.Orphan).toBe(0); // joined to its cudaGraphLaunch
      }
    }
    expect(graphs).toBe(20);
  });
});

describe('a JAX program under nsys (recorded on an H200)', () => {
  it("reads XLA's CUDA graph launches through the driver API, joined to their calls", async () => {
    const { trace, warnings } = await importFixture('nsys/2025.3.1/jax.sqlite.gz');
    expect(importSummary(trace).counts).toMatchObject({
      kernel: 1654,
      memcpy: 43,
      memset: 792,
      sync: 1113,
      graph: 21,
      api: 14926,
    });
    const ops = trace.ops.columns();
    let graphs = 0;
    for (let i = 0; i < ops.count; i++) {
      if (ops.kind[i] === OpKind.GraphLaunch) {
        graphs++;
        expect(ops.flags[i]! & OpFlag.Orphan).toBe(0); // joined to its cuGraphLaunch
      }
    }
    expect(graphs).toBe(21);
    const launches = flowsOfKind(trace, FlowKind.ApiToGpu).map(([from]) =>
      trace.name(ops.nameId[from]!),
    );
    expect(launches).toContain('cuGraphLaunch');
    expect(launches).toContain('cuMemcpyHtoDAsync_v2');
    // The export holds 43 stream syncs whose calls it does not: kept, and said.
    expect(warnings).toEqual([
      '43 GPU operations have no matching API call (kept, flagged orphan)',
    ]);
  });
});

describe('nsys 2025.3.1 exports of two processes and of a graph traced node by node', () => {
  it('joins within each process although both processes use the same correlation ids', async () => {
    for (const file of ['nsys/2025.3.1/multi.json.gz', 'nsys/2025.3.1/multi.sqlite.gz']) {
      const { trace, warnings } = await importFixture(file);
      expect(warnings).toEqual([]);
      expect(trace.processes.map((p) => p.name)).toEqual(['python3', 'python3']);
      const ops = trace.ops.columns();
      const idsByPid = new Map<number, Set<number>>();
      for (let i = 0; i < ops.count; i++) {
        if (ops.kind[i] === OpKind.ApiCall && ops.correlationId[i] !== 0) {
          const pid = trace.tracks[ops.track[i]!]!.pid;
          idsByPid.set(pid, (idsByPid.get(pid) ?? new Set()).add(ops.correlationId[i]!));
        }
      }
      const [a, b] = [...idsByPid.values()];
      expect([...a!].filter((id) => b!.has(id)).length).toBeGreaterThan(400);
      const launches = flowsOfKind(trace, FlowKind.ApiToGpu);
      expect(launches.length).toBeGreaterThan(300);
      for (const [from, to] of launches) {
        expect(trace.tracks[ops.track[from]!]!.pid).toBe(trace.tracks[ops.track[to]!]!.pid);
      }
    }
  });

  it('flags the kernels of a graph traced node by node as in-graph, joined to the launch', async () => {
    for (const file of ['nsys/2025.3.1/graphnode.json.gz', 'nsys/2025.3.1/graphnode.sqlite.gz']) {
      const { trace } = await importFixture(file);
      const ops = trace.ops.columns();
      let inGraph = 0;
      for (let i = 0; i < ops.count; i++) {
        if ((ops.flags[i]! & OpFlag.InGraph) !== 0) {
          inGraph++;
          expect(ops.kind[i]).toBe(OpKind.Kernel);
          expect(ops.flags[i]! & OpFlag.Orphan).toBe(0);
        }
      }
      expect(inGraph).toBe(100); // 20 replays of a 5-kernel graph
      expect(importSummary(trace).counts.graph).toBe(0);
    }
  });
});

describe('older layouts and schemas', () => {
  it('joins API calls to GPU ops by process and correlation id, never across processes', async () => {
    for (const file of ['nsys/older/layout-a-2021.json', 'nsys/older/schema-2021.sqlite']) {
      const { trace } = await importFixture(file);
      const ops = trace.ops.columns();
      const launches = flowsOfKind(trace, FlowKind.ApiToGpu);
      expect(launches.length).toBeGreaterThanOrEqual(8);
      for (const [from, to] of launches) {
        expect(trace.tracks[ops.track[from]!]!.pid).toBe(trace.tracks[ops.track[to]!]!.pid);
        expect(ops.correlationId[from]).toBe(ops.correlationId[to]);
      }
    }
  });

  it('links each wait to the latest earlier record of a reused event id', async () => {
    for (const file of [
      'nsys/older/layout-a-2021.json',
      'nsys/older/layout-c-separate-strings.json',
      'nsys/older/schema-2026.sqlite',
    ]) {
      const { trace } = await importFixture(file);
      const ops = trace.ops.columns();
      const pairs = flowsOfKind(trace, FlowKind.EventRecordToWait).map(([from, to]) => [
        ops.correlationId[from],
        ops.correlationId[to],
      ]);
      expect(pairs.sort()).toEqual([
        [20, 21],
        [22, 23],
      ]);
    }
  });

  it('keeps GPU work without an API call, flagged orphan, and marks synchronous memsets', async () => {
    const { trace, warnings } = await importFixture('nsys/older/layout-a-2021.json');
    const ops = trace.ops.columns();
    const gpuOp = (corr: number): number =>
      Array.from(ops.correlationId).findIndex(
        (c, i) => c === corr && ops.kind[i] !== OpKind.ApiCall,
      );
    expect(ops.flags[gpuOp(999)]! & OpFlag.Orphan).toBe(OpFlag.Orphan);
    expect(ops.flags[gpuOp(24)]! & OpFlag.Sync).toBe(OpFlag.Sync); // cudaMemset, not cudaMemsetAsync
    expect(ops.flags[gpuOp(11)]! & OpFlag.Sync).toBe(0); // cudaMemcpyAsync
    expect(warnings.join('\n')).toMatch(/no matching API call/);
  });

  it('reads layouts A and C to the same trace', async () => {
    const a = await importFixture('nsys/older/layout-a-2021.json');
    const c = await importFixture('nsys/older/layout-c-separate-strings.json');
    const strip = (text: string): string => text.replace(/^format.*\n/, '');
    expect(strip(dumpTrace(c.trace, 100))).toBe(strip(dumpTrace(a.trace, 100)));
  });
});

describe('scrubbing', () => {
  it('never carries command lines, environments or captured output into the trace', async () => {
    for (const file of [
      'nsys/older/layout-a-2021.json',
      'nsys/older/schema-2026.sqlite',
      'nsys/2025.3.1/train.json',
    ]) {
      const { trace } = await importFixture(file);
      const saved = new TextDecoder().decode(saveTrace(trace));
      expect(saved).not.toMatch(/SECRET|environment removed|arguments removed|HOME=|PATH=/);
    }
  });
});

describe('the fast nsys JSON reader', () => {
  const files = [
    'nsys/2025.3.1/train.json',
    'nsys/2025.3.1/graph.json.gz',
    'nsys/older/layout-a-2021.json',
    'nsys/older/layout-c-separate-strings.json',
    'nsys/handmade/ddp-2gpu.json',
    'broken/truncated.json',
    'broken/dangling-flows.json',
  ];
  for (const file of files) {
    it(`reads ${file} exactly as JSON.parse of every line does`, async () => {
      const fast = await importFixture(file);
      const naive = await importFixture(file, { nsysJsonReader: 'json-parse' });
      expect(dumpTrace(fast.trace, 100_000)).toBe(dumpTrace(naive.trace, 100_000));
      expect(fast.warnings).toEqual(naive.warnings);
    });
  }
});
