import type { WorkloadOpInput } from '../schema.ts';
import { formatBytes } from '@streamscope/trace';
import type { PresetArgs, PresetDefinition } from './preset-types.ts';
import { bool, num, str } from './preset-types.ts';

// PyTorch DDP's gradient bucketing: the backward pass of a stack of layers, one fixed-work
// kernel per layer on each GPU's compute stream; each layer produces `tensorsPerLayer`
// gradient tensors. Tensors fill buckets in the order backward produces them; a bucket is
// all-reduced over every GPU once it holds at least bucketMiB (a tensor is never split, as in
// DDP, so a bucket smaller than a tensor holds that one tensor).

/** Gradient tensors per layer and the bytes of each: 8 × 2 MiB = 16 MiB, 4M float32 weights. */
const tensorsPerLayer = 8;
const tensorBytes = 2 * 1024 ** 2;
/**
 * A layer's backward kernel: about 150 µs of fixed work on an H100, 1024 threads per SM in
 * `blocksPerSm` blocks (132 SMs). Beside an all-reduce, whose NCCL kernel holds 16 SMs, one block
 * an SM (one wave, 132 × 1024 threads) doubled its time on two H200s
 * (fixtures/runs/collectives-h200x2.json: those runs are blocksPerSm=1); four, like a GEMM's
 * many tiles, lose about a quarter.
 */
const layerIterations = 27_000;
const sms = 132;
const threadsPerSm = 1024;

/** Buckets as [first byte, bytes] in the gradient buffer, filled in backward order, with the layer that closes each. */
function ddpBuckets(
  layers: number,
  bucketBytes: number,
): { readonly offset: number; readonly bytes: number; readonly afterLayer: number }[] {
  const buckets: { offset: number; bytes: number; afterLayer: number }[] = [];
  let start = 0;
  let filled = 0;
  for (let layer = 0; layer < layers; layer++) {
    for (let t = 0; t < tensorsPerLayer; t++) {
      filled += tensorBytes;
      const last = layer === layers - 1 && t === tensorsPerLayer - 1;
      if (filled >= bucketBytes || last) {
        buckets.push({ offset: start, bytes: filled, afterLayer: layer });
        start += filled;
        filled = 0;
      }
    }
  }
  return buckets;
}

/** The lesson with the layers, GPUs and bucket size set, and the buckets they make. */
function describeDdp(args: PresetArgs): string {
  const layers = num(args, 'layers');
  const devices = num(args, 'devices');
  const bucketMiB = num(args, 'bucketMiB');
  const buckets = ddpBuckets(layers, bucketMiB * 1024 ** 2);
  const first = formatBytes(buckets[0]!.bytes);
  const last = formatBytes(buckets[buckets.length - 1]!.bytes);
  const bucketsText =
    buckets.length === 1
      ? `one bucket of ${first}`
      : `${buckets.length} buckets of ${first}${last === first ? '' : ` (the last ${last})`}`;
  return (
    `The backward pass of ${layers} ${layers === 1 ? 'layer' : 'layers'} on ` +
    `${devices === 1 ? 'one GPU' : `each of ${devices} GPUs`}, each layer giving ` +
    `${formatBytes(tensorsPerLayer * tensorBytes)} of gradients. The gradients are all-reduced over ` +
    `${devices === 1 ? 'the one GPU (a no-op)' : 'the GPUs'} in ${bucketsText}: a bucket closes once it holds ` +
    `${bucketMiB} MiB, the last when the backward ends (PyTorch DDP's bucket_cap_mb is 25 by default). Without overlap every bucket is ` +
    'all-reduced after the whole backward; with overlap each bucket is all-reduced on a communication stream as ' +
    'soon as it fills (an event recorded on the compute stream, waited for on the communication stream), while ' +
    'the backward goes on. Small buckets start communicating early but pay a call and its latency each; large ' +
    'ones leave little to overlap.'
  );
}

export const ddpBucketing: PresetDefinition = {
  name: 'ddp-bucketing',
  title: 'Overlap gradient all-reduce with backward (DDP bucketing)',
  description: describeDdp,
  params: [
    {
      name: 'overlap',
      type: 'bool',
      default: true,
      description:
        'All-reduce each bucket as it fills, on a communication stream (false: after the backward)',
    },
    {
      name: 'bucketMiB',
      type: 'int',
      default: 25,
      min: 1,
      max: 512,
      description: 'Bucket size (MiB); a bucket closes once it holds at least this much',
    },
    {
      name: 'layers',
      type: 'int',
      default: 24,
      min: 1,
      max: 200,
      description: 'Layers in the backward',
    },
    {
      name: 'blocksPerSm',
      type: 'enum',
      default: '4',
      options: ['1', '2', '4', '8'],
      description:
        'Blocks per SM of each backward kernel (same work): 1 fills the GPU in one wave, and the SMs an all-reduce holds double its time',
    },
    {
      name: 'devices',
      type: 'int',
      default: 2,
      min: 1,
      max: 8,
      description:
        'GPUs the gradients are all-reduced over (1: one-GPU run, the collective is a no-op)',
    },
  ],
  pitfallParam: 'overlap',
  build(args) {
    const overlap = bool(args, 'overlap');
    const layers = num(args, 'layers');
    const devices = num(args, 'devices');
    const bucketBytes = Math.round(num(args, 'bucketMiB') * 1024 ** 2);
    const blocksPerSm = Number(str(args, 'blocksPerSm'));
    const layerGrid = sms * blocksPerSm;
    const layerBlock = threadsPerSm / blocksPerSm;
    const gpus = Array.from({ length: devices }, (_, d) => d);
    const buckets = ddpBuckets(layers, bucketBytes);
    const allReduce = (k: number): WorkloadOpInput => ({
      op: 'allReduce',
      group: 'world',
      streams: gpus.map((d) => `comm${d}`),
      send: gpus.map((d) => `grad${d}`),
      sendOffset: buckets[k]!.offset,
      bytes: buckets[k]!.bytes,
      dtype: 'float32',
    });
    // The communication stream of every GPU waits for the compute stream's latest record.
    const handOff = (event: string): WorkloadOpInput[] =>
      gpus.flatMap((d): WorkloadOpInput[] => [
        { op: 'eventRecord', event: `${event}${d}`, stream: `compute${d}` },
        { op: 'streamWait', event: `${event}${d}`, stream: `comm${d}` },
      ]);
    const ops: WorkloadOpInput[] = [];
    let next = 0;
    for (let layer = 0; layer < layers; layer++) {
      for (const d of gpus) {
        ops.push({
          op: 'kernel',
          name: `backward layer ${layers - 1 - layer}`,
          iterations: layerIterations,
          grid: layerGrid,
          block: layerBlock,
          stream: `compute${d}`,
        });
      }
      while (overlap && next < buckets.length && buckets[next]!.afterLayer === layer) {
        ops.push(...handOff('ready'), allReduce(next));
        next++;
      }
    }
    if (!overlap) {
      ops.push(...handOff('ready'), ...buckets.map((_, k) => allReduce(k)));
    }
    // The optimizer step waits for the last bucket, then every stream is drained.
    for (const d of gpus) {
      ops.push(
        { op: 'eventRecord', event: `reduced${d}`, stream: `comm${d}` },
        { op: 'streamWait', event: `reduced${d}`, stream: `compute${d}` },
        {
          op: 'kernel',
          name: 'optimizer step',
          iterations: layerIterations / 4,
          grid: layerGrid,
          block: layerBlock,
          stream: `compute${d}`,
        },
      );
    }
    for (const d of gpus) {
      ops.push({ op: 'streamSync', stream: `compute${d}` });
    }
    const gradBytes = layers * tensorsPerLayer * tensorBytes;
    return {
      name: `ddp-bucketing (${overlap ? 'overlap' : 'after backward'}, ${buckets.length} buckets)`,
      description: `${layers} layers, ${buckets.length} buckets of about ${Math.round(bucketBytes / 1024 ** 2)} MiB over ${devices} GPUs`,
      devices: gpus.map((d) => ({ name: `gpu${d}` })),
      groups: [{ name: 'world', devices: gpus.map((d) => `gpu${d}`) }],
      buffers: gpus.map((d) => ({
        name: `grad${d}`,
        kind: 'device' as const,
        size: gradBytes,
        device: `gpu${d}`,
      })),
      streams: gpus.flatMap((d) => [
        { name: `compute${d}`, device: `gpu${d}`, type: 'non-blocking' as const },
        { name: `comm${d}`, device: `gpu${d}`, type: 'non-blocking' as const },
      ]),
      events: gpus.flatMap((d) => [{ name: `ready${d}` }, { name: `reduced${d}` }]),
      threads: [{ name: 'main', ops }],
    };
  },
};
