import { OpKind } from '@streamscope/trace';
import type { PlanCollective, PlanDtype, PlanP2p, PlanReduceOp } from '@streamscope/workload';
import type { CmdSlot } from './command-store.ts';
import { CmdKind } from './command-store.ts';
import type { SimCore } from './core.ts';
import type { LinkProfile } from './link-model.ts';
import { collectiveCost, p2pCost } from './link-model.ts';

/**
 * Collectives and send/recv on the simulated GPUs. A collective is one kernel per member, on
 * that member's stream, named as NCCL names its kernels; it holds `channels` of the member's
 * SMs whole (so a concurrent one-wave kernel doubles up on the rest and can take twice as
 * long, as measured on two H200s) for the time the link model gives. No
 * member starts before every member's stream has reached the op: each member's command holds
 * one extra dependency, the rendezvous, released once all of them are due (their stream's turn,
 * every other dependency met).
 */
export class Collectives {
  /** Per command slot of a member waiting at a rendezvous: the rendezvous. */
  private readonly waiting = new Map<CmdSlot, Rendezvous>();
  /** Send/recv rendezvous by the opId of the half issued first, until the other half comes. */
  private readonly openPairs = new Map<number, Rendezvous>();
  private readonly launches = new Map<number, number>();
  /** Send regions ("buffer:offset") a call has used in this run. */
  private readonly regionsSeen = new Set<string>();
  /** Groups (and send/recv device pairs) that have made a call in this run. */
  private readonly groupsSeen = new Set<string>();

  constructor(
    private readonly core: SimCore,
    readonly link: LinkProfile,
  ) {}

  /**
   * Host time of the call that issues `op` (one NCCL group call launching a kernel per member),
   * more for the first call of its group in the run and the first time a member's send region
   * comes up.
   */
  hostCostNs(op: PlanCollective | PlanP2p): number {
    const regions =
      op.kind === 'collective'
        ? op.members.map((m) => `${m.sendBuffer}:${m.sendOffset}`)
        : [`${op.buffer}:${op.offset}`];
    let fresh = false;
    for (const region of regions) {
      if (!this.regionsSeen.has(region)) {
        this.regionsSeen.add(region);
        fresh = true;
      }
    }
    const group =
      op.kind === 'collective'
        ? `g${op.group}`
        : `p${Math.min(op.device, op.peer)}:${Math.max(op.device, op.peer)}`;
    const first = !this.groupsSeen.has(group);
    this.groupsSeen.add(group);
    return (
      this.link.hostCallNs +
      (first ? this.link.firstCallNs : 0) +
      (fresh ? this.link.newRegionNs : 0) +
      regions.length * this.core.profile.api.launchKernel
    );
  }

  /** Builds the member commands of a collective (not issued yet), each held by the rendezvous. */
  collective(op: PlanCollective, correlationId: number, arrivalNs: number): CmdSlot[] {
    const n = op.members.length;
    const cost = collectiveCost(this.link, op.collective, op.bytes, n, op.algorithm);
    const name = kernelName(op, cost.algorithm, cost.protocol);
    const durNs = n === 1 && !op.inPlace ? this.oneRankCopyNs(op) : cost.durNs;
    const rendezvous: Rendezvous = { members: [], expected: n, reached: 0 };
    return op.members.map((m) => {
      const cmd = this.kernel(m.stream, name, correlationId, arrivalNs, op.bytes, durNs);
      this.hold(cmd, rendezvous);
      return cmd;
    });
  }

  /**
   * One rank out of place: NCCL copies its send buffer to its receive buffer on the SMs (64 MiB
   * took 45 µs on an H100 and 35 µs on an H200: fixtures/runs/nccl-1gpu-h100.json,
   * collectives-h200x2.json), so a device-to-device copy's time. In place it moves nothing.
   */
  private oneRankCopyNs(op: PlanCollective): number {
    // With one member every kind moves `bytes` (its send and receive regions are that size).
    return (op.bytes / this.core.profile.copyBandwidthBytesPerS.dtod) * 1e9;
  }

  /** Builds one half of a send/recv pair, held until the other half is due too. */
  p2p(op: PlanP2p, correlationId: number, arrivalNs: number): CmdSlot {
    const durNs = p2pCost(this.link, op.bytes);
    const cmd = this.kernel(
      op.stream,
      'ncclDevKernel_SendRecv',
      correlationId,
      arrivalNs,
      op.bytes,
      durNs,
    );
    let rendezvous = this.openPairs.get(op.match);
    if (rendezvous === undefined) {
      rendezvous = { members: [], expected: 2, reached: 0 };
      this.openPairs.set(op.opId, rendezvous);
    } else {
      this.openPairs.delete(op.match);
    }
    this.hold(cmd, rendezvous);
    return cmd;
  }

  private hold(cmd: CmdSlot, rendezvous: Rendezvous): void {
    rendezvous.members.push(cmd);
    this.waiting.set(cmd, rendezvous);
    this.core.cmds.pendingDeps[cmd]!++;
    this.core.cmds.retain(cmd);
  }

  /**
   * `cmd` is due but for its rendezvous (called by the core when only that dependency is left):
   * once every member is due, all of them go ahead together.
   */
  reached(cmd: CmdSlot): void {
    const rendezvous = this.waiting.get(cmd);
    if (rendezvous === undefined) {
      return;
    }
    this.waiting.delete(cmd);
    rendezvous.reached++;
    if (rendezvous.reached < rendezvous.expected) {
      return;
    }
    const c = this.core.cmds;
    for (const member of rendezvous.members) {
      c.pendingDeps[member]!--;
      this.core.tryReady(member);
      c.release(member);
    }
  }

  private kernel(
    stream: number,
    name: string,
    correlationId: number,
    arrivalNs: number,
    bytes: number,
    durNs: number,
  ): CmdSlot {
    const core = this.core;
    const c = core.cmds;
    const link = this.link;
    const cmd = c.alloc(
      CmdKind.Compute,
      stream,
      arrivalNs,
      OpKind.Kernel,
      core.writer.name(name),
      correlationId,
      bytes,
      0,
      this.launch(),
      0,
    );
    // Each channel's block holds a whole SM (NCCL's kernels take its registers and shared
    // memory): no other kernel's block shares it, and the blocks it displaces double up on
    // the other SMs (device-engine.ts).
    c.warpsPerBlock[cmd] = Math.ceil(link.threadsPerChannel / 32);
    c.threadsPerBlock[cmd] = core.profile.device.maxThreadsPerSm;
    c.smemPerBlock[cmd] = 0;
    c.holdsSm[cmd] = 1;
    c.blocksLeft[cmd] = link.channels;
    c.blockNs[cmd] = Math.round(durNs);
    return cmd;
  }

  private launch(): number {
    const link = this.link;
    const key = link.channels * 65_536 + link.threadsPerChannel;
    let id = this.launches.get(key);
    if (id === undefined) {
      id = this.core.trace.launches.intern({
        gridX: link.channels,
        gridY: 1,
        gridZ: 1,
        blockX: link.threadsPerChannel,
        blockY: 1,
        blockZ: 1,
        sharedMemBytes: 0,
        registersPerThread: 0,
      });
      this.launches.set(key, id);
    }
    return id;
  }
}

interface Rendezvous {
  readonly members: CmdSlot[];
  readonly expected: number;
  reached: number;
}

const collectiveNames: Record<PlanCollective['collective'], string> = {
  allReduce: 'AllReduce',
  reduceScatter: 'ReduceScatter',
  allGather: 'AllGather',
  broadcast: 'Broadcast',
};

const dtypeNames: Record<PlanDtype, string> = {
  int8: 'i8',
  uint8: 'u8',
  int32: 'i32',
  uint32: 'u32',
  int64: 'i64',
  uint64: 'u64',
  float16: 'f16',
  bfloat16: 'bf16',
  float32: 'f32',
  float64: 'f64',
};

function reduceName(reduce: PlanReduceOp, dtype: PlanDtype): string {
  switch (reduce) {
    case 'sum':
      return 'Sum';
    case 'prod':
      return 'Prod';
    case 'max':
    case 'min':
      return 'MinMax';
    case 'avg':
      // NCCL averages floats by pre-multiplying, integers by dividing after the sum.
      return dtype.startsWith('float') || dtype === 'bfloat16' ? 'PreMulSum' : 'SumPostDiv';
  }
}

/**
 * NCCL's kernel name for a collective: `ncclDevKernel_AllReduce_Sum_f32_RING_LL`; all-gather
 * and broadcast carry no reduction or type (`ncclDevKernel_AllGather_RING_LL`).
 */
function kernelName(op: PlanCollective, algorithm: string, protocol: string): string {
  const coll = collectiveNames[op.collective];
  if (op.reduce === null) {
    return `ncclDevKernel_${coll}_${algorithm}_${protocol}`;
  }
  return `ncclDevKernel_${coll}_${reduceName(op.reduce, op.dtype)}_${dtypeNames[op.dtype]}_${algorithm}_${protocol}`;
}
