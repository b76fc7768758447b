// The workloads the GPU machine runs for collectives (scripts/gpu/collectives-main.ts):
//   pnpm tsx scripts/gpu/collective-workloads.ts OUT_DIR DEVICES
// writes one spec per file: a one-GPU allReduce (NCCL's path on any machine), an allReduce size
// sweep and a send/recv pair over DEVICES GPUs (the link model's bus bandwidth and per-call
// latency), and the ddp-bucketing preset both ways at three bucket sizes, with one and with four
// blocks an SM.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { buildPreset, presets } from '@streamscope/workload';

const MiB = 1 << 20;

/**
 * `count` allReduces of `bytes` per member. NCCL does nothing for an in-place collective of one
 * rank, and a device-to-device copy out of place: the one-GPU workload is out of place.
 */
function allReduceSweep(
  devices: number,
  bytes: number,
  count: number,
  outOfPlace = devices === 1,
): unknown {
  const names = Array.from({ length: devices }, (_, d) => `gpu${d}`);
  const recv = outOfPlace ? { recv: names.map((_, d) => `r${d}`) } : {};
  return {
    name: `allreduce-${devices}gpu-${bytes / MiB}MiB`,
    devices: names.map((name) => ({ name })),
    groups: [{ name: 'world', devices: names }],
    buffers: names.flatMap((device, d) => [
      { name: `g${d}`, kind: 'device', size: bytes, device },
      ...(outOfPlace ? [{ name: `r${d}`, kind: 'device', size: bytes, device }] : []),
    ]),
    streams: names.map((device, d) => ({ name: `c${d}`, device, type: 'non-blocking' })),
    threads: [
      {
        name: 'main',
        ops: [
          {
            op: 'repeat',
            count,
            ops: [
              {
                op: 'allReduce',
                group: 'world',
                streams: names.map((_, d) => `c${d}`),
                send: names.map((_, d) => `g${d}`),
                ...recv,
                bytes,
                dtype: 'float32',
              },
            ],
          },
          { op: 'deviceSync' },
        ],
      },
    ],
  };
}

function sendRecv(bytes: number, count: number): unknown {
  return {
    name: `sendrecv-2gpu-${bytes / MiB}MiB`,
    devices: [{ name: 'gpu0' }, { name: 'gpu1' }],
    buffers: [
      { name: 'a', kind: 'device', size: bytes, device: 'gpu0' },
      { name: 'b', kind: 'device', size: bytes, device: 'gpu1' },
    ],
    streams: [
      { name: 'c0', device: 'gpu0', type: 'non-blocking' },
      { name: 'c1', device: 'gpu1', type: 'non-blocking' },
    ],
    threads: [
      {
        name: 'main',
        ops: [
          {
            op: 'repeat',
            count,
            ops: [
              { op: 'send', stream: 'c0', buffer: 'a', bytes, peer: 'gpu1' },
              { op: 'recv', stream: 'c1', buffer: 'b', bytes, peer: 'gpu0' },
            ],
          },
          { op: 'deviceSync' },
        ],
      },
    ],
  };
}

const [outDir, devicesText] = process.argv.slice(2);
if (outDir === undefined) {
  process.stderr.write('usage: collective-workloads.ts OUT_DIR [DEVICES]\n');
  process.exit(2);
}
const devices = Number(devicesText ?? 2);
mkdirSync(outDir, { recursive: true });
const specs: unknown[] = [allReduceSweep(1, 64 * MiB, 8)];
if (devices >= 2) {
  for (const mib of [1, 16, 64, 256]) {
    specs.push(allReduceSweep(devices, mib * MiB, 8));
  }
  specs.push(sendRecv(64 * MiB, 8));
}
if (presets.some((p) => p.name === 'ddp-bucketing') && devices >= 2) {
  // One block an SM (the 2026-11-27 run's shape, named as then) and the preset's default four.
  for (const blocksPerSm of ['1', '4']) {
    const shape = blocksPerSm === '1' ? '' : `-b${blocksPerSm}`;
    for (const overlap of [false, true]) {
      for (const bucketMiB of [5, 25, 100]) {
        const params = { overlap, bucketMiB, devices, blocksPerSm };
        const spec = buildPreset('ddp-bucketing', params) as { name: string };
        const name = `ddp-${overlap ? 'overlap' : 'sync'}-${bucketMiB}MiB${shape}`;
        specs.push({ ...spec, name });
      }
    }
  }
}
for (const spec of specs) {
  const name = (spec as { name: string }).name;
  writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(spec, null, 2) + '\n');
}
process.stdout.write(`${specs.length} workloads in ${outDir}\n`);
