import type { CollectiveKind } from '@streamscope/workload';

/** NCCL's protocols: LL (8-byte stores with a flag), LL128 (128-byte lines), Simple (bulk). */
export type NcclProtocol = 'LL' | 'LL128' | 'SIMPLE';
export type NcclAlgorithm = 'RING' | 'TREE';

/** Per protocol, a value of NCCL's tuning model. */
export interface PerProtocol {
  readonly LL: number;
  readonly LL128: number;
  readonly SIMPLE: number;
}

/**
 * How the GPUs of one host talk to each other, as the simulator's collectives see it: the bus
 * bandwidth NCCL achieves (nccl-tests' busbw), and the latency of each step of an algorithm.
 */
export interface LinkProfile {
  readonly name: string;
  /** "NVLink 4 through NVSwitch", "PCIe Gen5 through the host bridge". */
  readonly fabric: string;
  /** GPUs on the host: plans with more devices do not fit. */
  readonly gpusPerHost: number;
  /** Peak per GPU and direction (the data sheet), bytes/s. */
  readonly peakBytesPerS: number;
  /** What NCCL's ring reaches for large messages (busbw), bytes/s. */
  readonly busBytesPerS: number;
  /** What one send/recv pair reaches for large messages, bytes/s. */
  readonly p2pBytesPerS: number;
  /** Fixed cost of a collective kernel (NCCL's baseLat), ns. */
  readonly baseLatNs: PerProtocol;
  /** Each step of a ring or tree (NCCL's hwLat), ns. */
  readonly stepLatNs: PerProtocol;
  /** Blocks (NCCL channels) a collective kernel runs on each member, and threads per block. */
  readonly channels: number;
  readonly threadsPerChannel: number;
  /** Host time of one NCCL call (ncclGroupStart … ncclGroupEnd around one op), ns. */
  readonly hostCallNs: number;
  /** Host time a call adds when a member's send region is new to the run, ns (0: not measured). */
  readonly newRegionNs: number;
  /** Host time the first call of a group in the run adds, ns (0: not measured). */
  readonly firstCallNs: number;
}

/*
 * Where the figures come from:
 * - Bus bandwidth and the formulas below: nccl-tests doc/PERFORMANCE.md (busbw = algbw ×
 *   2(n−1)/n for all-reduce, × (n−1)/n for reduce-scatter and all-gather, × 1 for broadcast).
 * - H100 SXM, NVLink 4: 900 GB/s bidirectional per GPU (450 per direction). NVIDIA's
 *   p2pBandwidthLatencyTest reaches 380 GB/s one way and 749 GB/s both ways between two H100
 *   SXM (github.com/NVIDIA/nccl issue 1264); 8 × H100 SXM reach 460–480 GB/s all-reduce busbw
 *   with NVLink SHARP (docs.alayanew.com, "NCCL-tests in practice"). A ring without NVLS is
 *   bounded by the one-way rate: 360 GB/s here, about 80% of the link.
 * - PCIe Gen5 hosts without NVLink: 8 × H100 PCIe reach 35–45 GB/s busbw (same source).
 * - Latencies: NCCL's tuning model (src/graph/tuning.cc): base latency per call of Ring
 *   LL / LL128 / Simple ≈ 3.6 / 10 / 8.4 µs, and per step on NVLink ≈ 0.47 / 1.9 / 3.4 µs.
 * - LL moves 4 data bytes per 8-byte store (half the bandwidth), LL128 120 of 128.
 * - Channels: NCCL runs a collective on one block per channel (512 threads for Simple);
 *   16 channels is what it opens over NVLink between H100s for large messages.
 */

const nvlinkLatency = {
  baseLatNs: { LL: 3_600, LL128: 10_000, SIMPLE: 8_400 },
  stepLatNs: { LL: 470, LL128: 1_900, SIMPLE: 3_400 },
} as const;

/** Fraction of the bus bandwidth each protocol carries as data. */
const protocolEfficiency: PerProtocol = { LL: 0.5, LL128: 120 / 128, SIMPLE: 1 };

function nvlink4(gpus: number, busGBps: number): LinkProfile {
  return {
    name: `nvlink4-x${gpus}`,
    fabric: 'NVLink 4 through NVSwitch (900 GB/s bidirectional per GPU)',
    gpusPerHost: gpus,
    peakBytesPerS: 450e9,
    busBytesPerS: busGBps * 1e9,
    p2pBytesPerS: 370e9,
    ...nvlinkLatency,
    channels: 16,
    threadsPerChannel: 512,
    hostCallNs: 6_000,
    newRegionNs: 0,
    firstCallNs: 0,
  };
}

/*
 * Two H200 SXM with 18 NVLinks between them (NV18), NCCL 2.28, driver 580.159.04, measured on
 * 2026-11-27 (fixtures/runs/collectives-h200x2.json, the kernels in collectives-traces-h200x2):
 * ring all-reduce kernels of 16, 64 and 256 MiB took 72.5, 245 and 894 µs, 305 GB/s busbw
 * once the model's Simple latencies (15.2 µs) are taken off the 256 MiB one; a 64 MiB
 * send/recv 196 µs, 364 GB/s the same way; one ncclAllReduce call over both GPUs 28–33 µs on
 * the host (median of 7 per size after the first), 17 µs beside its two kernel launches, when
 * it reduces the region it reduced before; 37–50 µs in the DDP runs, where every call is on a
 * bucket's region of its own: 15 µs more. The first call of a run took 146–148 µs.
 */
const nvlink4H200x2: LinkProfile = {
  ...nvlink4(2, 305),
  // Fixed costs fit to the kernels by size (1 MiB 11.6 µs, 6 MiB 38.5, 16 MiB 72.5): Simple's
  // 17.5 µs in all (the tuning model's 15.2) and LL128's 16.8 µs, LL's as the model has it.
  baseLatNs: { LL: 3_600, LL128: 13_000, SIMPLE: 10_700 },
  name: 'nvlink4-x2-h200',
  fabric: 'NVLink 4, 18 links between two H200 (measured)',
  p2pBytesPerS: 364e9,
  hostCallNs: 17_000,
  newRegionNs: 15_000,
  firstCallNs: 115_000,
};

/** Link models by name; profiles refer to one of these. */
export const linkProfiles = {
  // Ring busbw is bounded by the one-way link rate whatever the GPU count on an NVSwitch host.
  'nvlink4-x2': nvlink4(2, 360),
  'nvlink4-x2-h200': nvlink4H200x2,
  'nvlink4-x4': nvlink4(4, 360),
  'nvlink4-x8': nvlink4(8, 360),
  // A one-GPU host: collectives over one member move nothing and cost NCCL's base latency.
  local: {
    name: 'local',
    fabric: 'one GPU (no links)',
    gpusPerHost: 1,
    peakBytesPerS: 0,
    busBytesPerS: 0,
    p2pBytesPerS: 0,
    ...nvlinkLatency,
    channels: 1,
    threadsPerChannel: 512,
    hostCallNs: 6_000,
    newRegionNs: 0,
    firstCallNs: 0,
  },
  'pcie5-x4': {
    name: 'pcie5-x4',
    fabric: 'PCIe Gen5 through the host (no NVLink)',
    gpusPerHost: 4,
    peakBytesPerS: 64e9,
    busBytesPerS: 40e9,
    p2pBytesPerS: 45e9,
    // PCIe steps take longer than NVLink's (a round trip through the root complex).
    baseLatNs: { LL: 3_600, LL128: 10_000, SIMPLE: 8_400 },
    stepLatNs: { LL: 1_000, LL128: 2_400, SIMPLE: 4_500 },
    channels: 4,
    threadsPerChannel: 512,
    hostCallNs: 6_000,
    newRegionNs: 0,
    firstCallNs: 0,
  },
} as const satisfies Record<string, LinkProfile>;

/** What one collective costs on a link: its algorithm, protocol and time on the GPU. */
export interface CollectiveCost {
  readonly algorithm: NcclAlgorithm;
  readonly protocol: NcclProtocol;
  readonly durNs: number;
}

const protocols: readonly NcclProtocol[] = ['LL', 'LL128', 'SIMPLE'];

/**
 * Bytes each member puts on the bus, and the sequential steps, of a collective of `bytes` per
 * member (NCCL's count × dtype size) over `n` ranks with `algorithm`.
 */
export function collectiveTraffic(
  kind: CollectiveKind,
  bytes: number,
  n: number,
  algorithm: NcclAlgorithm,
): { readonly busBytes: number; readonly steps: number } {
  if (n <= 1) {
    return { busBytes: 0, steps: 0 };
  }
  if (algorithm === 'TREE') {
    // A double binary tree: up then down, log2(n) steps each way, the whole buffer each way.
    const depth = Math.ceil(Math.log2(n));
    return kind === 'allReduce'
      ? { busBytes: 2 * bytes, steps: 2 * depth }
      : { busBytes: bytes, steps: depth };
  }
  switch (kind) {
    case 'allReduce':
      // Reduce-scatter then all-gather around the ring: 2(n−1) steps of bytes/n each.
      return { busBytes: (2 * (n - 1) * bytes) / n, steps: 2 * (n - 1) };
    case 'reduceScatter':
    case 'allGather':
      // n−1 steps of one member's share (bytes): the total is n × bytes.
      return { busBytes: (n - 1) * bytes, steps: n - 1 };
    case 'broadcast':
      // A pipeline around the ring: every byte crosses each link once, n−1 hops deep.
      return { busBytes: bytes, steps: n - 1 };
  }
}

/**
 * The time of a collective on `link`: base latency + steps × step latency + bus bytes / (bus
 * bandwidth × the protocol's efficiency), the cheapest protocol, and with `algorithm` "auto"
 * the cheaper of ring and tree (tree only for all-reduce, where it wins for small sizes).
 */
export function collectiveCost(
  link: LinkProfile,
  kind: CollectiveKind,
  bytes: number,
  n: number,
  algorithm: 'auto' | 'ring' | 'tree',
): CollectiveCost {
  const algorithms: NcclAlgorithm[] =
    algorithm === 'ring'
      ? ['RING']
      : algorithm === 'tree'
        ? ['TREE']
        : kind === 'allReduce'
          ? ['RING', 'TREE']
          : ['RING'];
  let best: CollectiveCost = { algorithm: 'RING', protocol: 'SIMPLE', durNs: Infinity };
  for (const a of algorithms) {
    const { busBytes, steps } = collectiveTraffic(kind, bytes, n, a);
    for (const p of protocols) {
      const durNs =
        link.baseLatNs[p] +
        steps * link.stepLatNs[p] +
        (busBytes === 0 ? 0 : (busBytes / (link.busBytesPerS * protocolEfficiency[p])) * 1e9);
      if (durNs < best.durNs) {
        best = { algorithm: a, protocol: p, durNs };
      }
    }
  }
  return best;
}

/** The time of one send/recv pair of `bytes` (Simple protocol, one step). */
export function p2pCost(link: LinkProfile, bytes: number): number {
  return link.baseLatNs.SIMPLE + link.stepLatNs.SIMPLE + (bytes / link.p2pBytesPerS) * 1e9;
}
