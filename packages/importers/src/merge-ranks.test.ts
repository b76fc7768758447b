import type { Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { ImportError } from './import-error.ts';
import { importTrace } from './import-trace.ts';
import { mergeRanks } from './merge-ranks.ts';
import { importSummary } from './summary.ts';
import { importFixture } from './test-support.ts';

async function importText(text: string, fileName: string): Promise<Trace> {
  return (await importTrace(new TextEncoder().encode(text), { fileName })).trace;
}

/** A one-kernel kineto trace: `top` holds the top-level members besides traceEvents. */
function kineto(top: string, kernelTs: string, pid: number): string {
  return `{${top}"traceEvents":[
    {"ph":"X","cat":"kernel","name":"k${pid}","pid":${pid},"tid":7,"ts":${kernelTs},"dur":2.000,
     "args":{"device":0,"stream":7,"correlation":1}}]}`;
}

const distributed = (rank: number, worldSize = 2): string =>
  `"distributedInfo":{"backend":"nccl","rank":${rank},"world_size":${worldSize}},`;

/** Epoch ns of op `op` of `trace`: clock zero + origin + its start. */
function epochNs(trace: Trace, op: number): bigint {
  return (
    BigInt(trace.meta.clockEpochNs ?? '0') +
    BigInt(trace.meta.originNs) +
    BigInt(trace.ops.columns().startNs[op]!)
  );
}

function firstOpOfRank(trace: Trace, rank: number): number {
  const ops = trace.ops.columns();
  for (let i = 0; i < ops.count; i++) {
    if (trace.tracks[ops.track[i]!]!.rank === rank) {
      return i;
    }
  }
  throw new Error(`rank ${rank} has no op`);
}

/** Per rank (or pid, without ranks), the GPUs its streams are on, as "rank:device". */
function gpusByOwner(trace: Trace, ofRank: boolean): string[] {
  const seen = new Set<string>();
  for (const t of trace.tracks) {
    if (t.kind === 'gpu-stream') {
      seen.add(`${ofRank ? t.rank : t.pid}:${t.deviceId}`);
    }
  }
  return [...seen].sort();
}

describe('a job of two ranks on two GPUs, recorded on the two-H200 machine', () => {
  // Each run: its kineto ranks and the nsys export of the same program (pt-nccl.py --gpus,
  // pt-ddp.py, pt-ddp.py --fsdp), with the NCCL kernels each rank runs.
  it.each([
    ['nccl2gpu', 'ncclDevKernel_'],
    ['ddp2gpu', 'ncclDevKernel_AllReduce'],
    ['fsdp2gpu', 'ncclDevKernel_ReduceScatter'],
    ['fsdp2gpu', 'ncclDevKernel_AllGather'],
  ])(
    "puts each kineto rank's streams of %s on its own GPU, %s kernels on both",
    async (run, nccl) => {
      const rank0 = (await importFixture(`kineto/${run}-rank0.pt.trace.json.gz`)).trace;
      const rank1 = (await importFixture(`kineto/${run}-rank1.pt.trace.json.gz`)).trace;
      const { trace } = mergeRanks([
        { trace: rank0, fileName: `${run}-rank0.pt.trace.json.gz` },
        { trace: rank1, fileName: `${run}-rank1.pt.trace.json.gz` },
      ]);
      expect(gpusByOwner(trace, true)).toEqual(['0:0', '1:1']);
      // NCCL's kernels on both GPUs, each beside its rank's compute.
      const ops = trace.ops.columns();
      const ncclGpus = new Set<number>();
      for (let i = 0; i < ops.count; i++) {
        const track = trace.tracks[ops.track[i]!]!;
        if (track.kind === 'gpu-stream' && trace.name(ops.nameId[i]!).startsWith(nccl)) {
          ncclGpus.add(track.deviceId);
        }
      }
      expect([...ncclGpus].sort()).toEqual([0, 1]);
    },
  );

  it.each(['nccl2gpu', 'ddp2gpu', 'fsdp2gpu'])(
    "puts each process's streams of the nsys export of %s on its own GPU",
    async (run) => {
      const { trace } = await importFixture(`nsys/2025.3.1/${run}.sqlite.gz`);
      const pids = trace.processes
        .filter((p) => trace.tracks.some((t) => t.pid === p.pid && t.kind === 'gpu-stream'))
        .map((p) => p.pid)
        .sort((a, b) => a - b);
      expect(gpusByOwner(trace, false)).toEqual([`${pids[0]}:0`, `${pids[1]}:1`]);
      expect(trace.devices.map((d) => d.pciBusId)).toEqual(['0000:00:06.0', '0000:00:07.0']);
    },
  );
});

describe('the same two-GPU programs watched live by streamscope profile', () => {
  // pt-ddp.py and pt-ddp.py --fsdp under `streamscope profile --out` (the injection collector) on
  // the two-H200 machine, each the same program as the nsys export beside it.
  it.each([
    ['ddp2gpu', 8015],
    ['fsdp2gpu', 18404],
  ])(
    "puts each process's streams of %s on its own GPU, with the GPU work nsys recorded",
    async (run, ops) => {
      const live = (await importFixture(`runs/profile-${run}-h200x2.sstrace`)).trace;
      expect(live.ops.count).toBe(ops);
      const pids = live.processes.map((p) => p.pid).sort((a, b) => a - b);
      expect(gpusByOwner(live, false)).toEqual([`${pids[0]}:0`, `${pids[1]}:1`]);
      const nsys = (await importFixture(`nsys/2025.3.1/${run}.sqlite.gz`)).trace;
      const { kernel, memcpy, memset } = importSummary(nsys).counts;
      expect(importSummary(live).counts).toMatchObject({ kernel, memcpy, memset });
    },
  );
});

describe('a torchrun job watched live', () => {
  it("gives each process the rank torchrun gave it, on its tracks too, each rank's streams on its GPU", async () => {
    // `streamscope profile -- torchrun --nproc_per_node 2 pt-ddp.py --fsdp --plain` on the
    // two-H200 machine: the collector reads RANK in each worker.
    const live = (await importFixture('runs/profile-torchrun-fsdp2gpu-h200x2.sstrace')).trace;
    expect(live.processes.map((p) => p.rank).sort()).toEqual([0, 1]);
    expect(live.tracks.every((t) => t.rank === 0 || t.rank === 1)).toBe(true);
    expect(gpusByOwner(live, true)).toEqual(['0:0', '1:1']);
  });
});

describe('mergeRanks on the recorded gloo pair', () => {
  it('gives one trace with a group per rank holding every op, range and flow of each file', async () => {
    const rank0 = (await importFixture('kineto/rank0.pt.trace.json.gz')).trace;
    const rank1 = (await importFixture('kineto/rank1.pt.trace.json.gz')).trace;
    // Give the files in reverse: ranks come from distributedInfo, not from the order.
    const { trace, ranks } = mergeRanks([
      { trace: rank1, fileName: 'rank1.pt.trace.json.gz' },
      { trace: rank0, fileName: 'rank0.pt.trace.json.gz' },
    ]);
    expect(trace.ops.count).toBe(rank0.ops.count + rank1.ops.count);
    expect(trace.ranges.count).toBe(rank0.ranges.count + rank1.ranges.count);
    expect(trace.flows.count).toBe(rank0.flows.count + rank1.flows.count);
    expect(ranks.map((r) => [r.rank, r.fileName])).toEqual([
      [0, 'rank0.pt.trace.json.gz'],
      [1, 'rank1.pt.trace.json.gz'],
    ]);
    expect(trace.processes.map((p) => p.rank).sort()).toEqual([0, 1]);
    expect(trace.tracks.every((t) => t.rank === 0 || t.rank === 1)).toBe(true);
    // Per rank, the ops of each kind are those of its file.
    const ops = trace.ops.columns();
    for (const [rank, source] of [
      [0, rank0],
      [1, rank1],
    ] as const) {
      let count = 0;
      for (let i = 0; i < ops.count; i++) {
        count += trace.tracks[ops.track[i]!]!.rank === rank ? 1 : 0;
      }
      expect(count).toBe(source.ops.count);
      // The file's first op keeps its wall-clock time to the ns.
      expect(epochNs(trace, firstOpOfRank(trace, rank))).toBe(epochNs(source, 0));
    }
    expect(trace.meta.clockEpochNs).toBe('0');
  });

  it('makes each nsys process with GPU work a rank when the export names none', async () => {
    const { trace: source } = await importFixture('nsys/handmade/ddp-2gpu.json');
    const { trace, ranks } = mergeRanks([{ trace: source, fileName: 'ddp-2gpu.json' }]);
    expect(ranks.map((r) => [r.rank, r.pids])).toEqual([
      [0, [2001]],
      [1, [2002]],
    ]);
    expect(trace.ops.count).toBe(source.ops.count);
    expect(trace.processes.map((p) => [p.pid, p.rank])).toEqual([
      [2001, 0],
      [2002, 1],
    ]);
  });
});

describe('the clocks and ranks the importers read', () => {
  it('reads an nsys SQLite session start exactly, beyond what a double holds', async () => {
    const { trace } = await importFixture('nsys/2025.3.1/nccl2.sqlite.gz');
    // TARGET_INFO_SESSION_START_TIME.utcEpochNs; as a double it would read …501440.
    expect(trace.meta.clockEpochNs).toBe('1795548875857501498');
  });

  it("reads kineto's distributedInfo and baseTimeNanoseconds", async () => {
    const { trace } = await importFixture('kineto/nccl2-rank1.pt.trace.json.gz');
    expect(trace.meta.distributed).toEqual({ rank: 1, worldSize: 2, backend: 'nccl' });
    expect(trace.meta.clockEpochNs).toBe('1790857026000000000');
  });

  it('warns about a distributedInfo whose rank is outside the world', async () => {
    const { trace, warnings } = await importTrace(
      new TextEncoder().encode(kineto(distributed(2, 2), '1', 10)),
      { fileName: 'x.json' },
    );
    expect(trace.meta.distributed).toBeUndefined();
    expect(warnings).toContain(
      'distributedInfo needs an integer rank in [0, world_size), got rank 2, world_size 2: the rank is not kept (distributedInfo)',
    );
  });

  it('says which distributedInfo member is missing', async () => {
    const { trace, warnings } = await importTrace(
      new TextEncoder().encode(kineto('"distributedInfo":{"rank":0},', '1', 10)),
      { fileName: 'x.json' },
    );
    expect(trace.meta.distributed).toBeUndefined();
    expect(warnings).toContain(
      'distributedInfo has no world_size: the rank is not kept (distributedInfo)',
    );
  });
});

describe('mergeRanks clock alignment', () => {
  it('lines files up on baseTimeNanoseconds + ts and on epoch µs, exact to the ns', async () => {
    // rank 0: base …000, kernel at 1000.001 µs → epoch 1790857026001000001 ns.
    const a = await importText(
      kineto(`${distributed(0, 3)}"baseTimeNanoseconds":1790857026000000000,`, '1000.001', 10),
      'a.json',
    );
    // rank 1: base 500 ns later, kernel at 1000.000 µs → epoch 1790857026001000500 ns.
    const b = await importText(
      kineto(`${distributed(1, 3)}"baseTimeNanoseconds":1790857026000000500,`, '1000.000', 11),
      'b.json',
    );
    // rank 2: no base, ts in µs since 1970 → epoch 1790857026000999999 ns (2 ns before rank 0).
    const c = await importText(kineto(distributed(2, 3), '1790857026000999.999', 12), 'c.json');
    const { trace, ranks, warnings } = mergeRanks([
      { trace: a, fileName: 'a.json' },
      { trace: b, fileName: 'b.json' },
      { trace: c, fileName: 'c.json' },
    ]);
    expect(warnings).toEqual([]);
    expect(trace.meta.originNs).toBe('1790857026000999999');
    const start = (rank: number): number =>
      trace.ops.columns().startNs[firstOpOfRank(trace, rank)]!;
    expect([start(0), start(1), start(2)]).toEqual([2, 501, 0]);
    expect(ranks.map((r) => r.shiftNs)).toEqual([2, 501, 0]);
  });

  it('places a file without a wall clock at the start and says so', async () => {
    const a = await importText(
      kineto(`${distributed(0)}"baseTimeNanoseconds":1790857026000000000,`, '1000', 10),
      'a.json',
    );
    // ts far below 1e15 µs and no base: a clock of unknown zero.
    const b = await importText(kineto(distributed(1), '55.5', 11), 'b.json');
    expect(b.meta.clockEpochNs).toBeUndefined();
    const { warnings, ranks } = mergeRanks([
      { trace: a, fileName: 'a.json' },
      { trace: b, fileName: 'b.json' },
    ]);
    expect(ranks[1]).toMatchObject({ rank: 1, clocked: false, shiftNs: 0 });
    expect(warnings).toContain(
      "b.json gives no wall clock: its first event is placed at the job's start",
    );
  });
});

describe('mergeRanks on ranks that do not fit together', () => {
  it('names both files when two claim one rank', async () => {
    const a = await importText(kineto(distributed(0), '1', 10), 'a.json');
    const b = await importText(kineto(distributed(0), '1', 11), 'b.json');
    const merge = (): unknown =>
      mergeRanks([
        { trace: a, fileName: 'a.json' },
        { trace: b, fileName: 'b.json' },
      ]);
    expect(merge).toThrow(ImportError);
    expect(merge).toThrow('b.json: is rank 0, and so is a.json');
  });

  it('refuses the same file given twice', async () => {
    const a = await importText(kineto(distributed(0), '1', 10), 'a.json');
    expect(() =>
      mergeRanks([
        { trace: a, fileName: 'a.json' },
        { trace: a, fileName: 'a.json' },
      ]),
    ).toThrow('a.json: is rank 0, and so is a.json');
  });

  it('names the world_size that differs', async () => {
    const a = await importText(kineto(distributed(0, 2), '1', 10), 'a.json');
    const b = await importText(kineto(distributed(1, 4), '1', 11), 'b.json');
    expect(() =>
      mergeRanks([
        { trace: a, fileName: 'a.json' },
        { trace: b, fileName: 'b.json' },
      ]),
    ).toThrow(
      'b.json, at distributedInfo.world_size: world_size is 4 but a.json says 2: these are not ranks of one job',
    );
  });

  it('says which ranks of the world are missing', async () => {
    const a = await importText(kineto(distributed(0, 4), '1', 10), 'a.json');
    const b = await importText(kineto(distributed(2, 4), '1', 11), 'b.json');
    const { warnings } = mergeRanks([
      { trace: a, fileName: 'a.json' },
      { trace: b, fileName: 'b.json' },
    ]);
    expect(warnings).toContain('2 of world_size 4 ranks are here; missing rank 1, 3');
  });
});
