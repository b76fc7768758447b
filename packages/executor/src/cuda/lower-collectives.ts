// Collectives and send/recv for the addon: plan groups become NCCL communicator sets, each
// collective one native op whose parts (one NCCL call per member) run in one
// ncclGroupStart/End. native/src/plan.h (PlanCollective) and plan-collectives.cc read this.
import type {
  Plan,
  PlanCollective,
  PlanDtype,
  PlanOp,
  PlanP2p,
  PlanReduceOp,
} from '@streamscope/workload';
import type { NativeCollective, NativeComm, NativeOpList } from './native-plan.ts';
import { NativeOpCode, nativeCollectivePartStride } from './native-plan.ts';

/** ncclDataType_t numbering (nccl.h). */
const ncclDtype: Record<PlanDtype, number> = {
  int8: 0,
  uint8: 1,
  int32: 2,
  uint32: 3,
  int64: 4,
  uint64: 5,
  float16: 6,
  float32: 7,
  float64: 8,
  bfloat16: 9,
};
/** ncclRedOp_t numbering (nccl.h). */
const ncclReduce: Record<PlanReduceOp, number> = { sum: 0, prod: 1, max: 2, min: 3, avg: 4 };
/** native CollectiveCall numbering (plan.h). */
const nativeCall = {
  allReduce: 0,
  reduceScatter: 1,
  allGather: 2,
  broadcast: 3,
  send: 4,
  recv: 5,
} as const;

const dtypeShort: Record<PlanDtype, string> = {
  int8: 'i8',
  uint8: 'u8',
  int32: 'i32',
  uint32: 'u32',
  int64: 'i64',
  uint64: 'u64',
  float16: 'f16',
  float32: 'f32',
  float64: 'f64',
  bfloat16: 'bf16',
};

/**
 * The label of a collective's GPU ops when CUPTI cannot name them (event timing): NCCL's own
 * kernel naming, so the analysis classes them as communication either way.
 */
export function collectiveKernelLabel(op: PlanCollective | PlanP2p): string {
  if (op.kind !== 'collective') {
    return 'ncclDevKernel_SendRecv';
  }
  const kind = op.collective[0]!.toUpperCase() + op.collective.slice(1);
  const reduce = op.reduce !== null ? `_${op.reduce[0]!.toUpperCase()}${op.reduce.slice(1)}` : '';
  return `ncclDevKernel_${kind}${reduce}_${dtypeShort[op.dtype]}`;
}

interface Part {
  readonly call: number;
  readonly stream: number;
  readonly sendBuffer: number;
  readonly sendOffset: number;
  readonly recvBuffer: number;
  readonly recvOffset: number;
  readonly rank: number;
  readonly peer: number;
}

export class CollectiveLowerer {
  readonly comms: NativeComm[];
  readonly collectives: NativeCollective[] = [];
  /** Comm over every plan device, for send/recv (made only when the plan has any). */
  private readonly p2pComm: number;
  private readonly threadOf = new Map<number, number>();
  private readonly opById = new Map<number, PlanOp>();

  constructor(
    private readonly plan: Plan,
    private readonly ordinal: (planDevice: number) => number,
  ) {
    this.comms = plan.groups.map((g) => ({ devices: g.devices.map(ordinal) }));
    let hasP2p = false;
    plan.threads.forEach((t, i) => {
      for (const op of t.ops) {
        if (op.kind === 'send' || op.kind === 'recv') {
          hasP2p = true;
          this.threadOf.set(op.opId, i);
          this.opById.set(op.opId, op);
        }
      }
    });
    this.p2pComm = hasP2p
      ? this.comms.push({ devices: plan.devices.map((d) => ordinal(d.id)) }) - 1
      : -1;
  }

  /** Lowers a collective, or a send/recv half (a same-thread pair becomes one op at its later half). */
  lower(
    op: PlanCollective | PlanP2p,
    thread: number,
    threadOps: readonly PlanOp[],
    out: NativeOpList,
    nameId: number,
  ): void {
    if (op.kind === 'collective') {
      const parts: Part[] = op.members.map((m, rank) => ({
        call: nativeCall[op.collective],
        stream: m.stream,
        sendBuffer: m.sendBuffer,
        sendOffset: m.sendOffset,
        recvBuffer: m.recvBuffer,
        recvOffset: m.recvOffset,
        rank,
        peer: -1,
      }));
      this.emit(out, op.members[0]!.stream, nameId, {
        comm: op.group,
        count: op.count,
        dtype: ncclDtype[op.dtype],
        reduce: op.reduce !== null ? ncclReduce[op.reduce] : 0,
        root: op.root ?? 0,
        parts,
      });
      return;
    }
    const other = this.opById.get(op.match) as PlanP2p | undefined;
    if (other === undefined) {
      throw new Error(`${op.src}: the ${op.kind} has no matching half in the plan`);
    }
    const sameThread = this.threadOf.get(other.opId) === thread;
    if (sameThread && other.opId > op.opId) {
      this.checkNothingBetween(op, other, threadOps);
      return; // issued together with its later half
    }
    const halves = sameThread ? [other, op] : [op];
    const parts = halves.map((h) => this.p2pPart(h));
    this.emit(out, op.stream, nameId, {
      comm: this.p2pComm,
      count: op.count,
      dtype: ncclDtype[op.dtype],
      reduce: 0,
      root: 0,
      parts,
    });
  }

  private p2pPart(h: PlanP2p): Part {
    const rank = (device: number): number => this.plan.devices.findIndex((d) => d.id === device);
    const send = h.kind === 'send';
    return {
      call: nativeCall[h.kind],
      stream: h.stream,
      sendBuffer: send ? h.buffer : -1,
      sendOffset: send ? h.offset : 0,
      recvBuffer: send ? -1 : h.buffer,
      recvOffset: send ? 0 : h.offset,
      rank: rank(h.device),
      peer: rank(h.peer),
    };
  }

  /**
   * A same-thread pair runs at its later half; work issued between the halves on the earlier
   * half's stream would then run before it on the GPU, against the spec's order.
   */
  private checkNothingBetween(first: PlanP2p, later: PlanP2p, threadOps: readonly PlanOp[]): void {
    for (const op of threadOps) {
      if (op.opId <= first.opId || op.opId >= later.opId) {
        continue;
      }
      if ('stream' in op && op.stream === first.stream) {
        throw new Error(
          `${op.src}: issued on the ${first.kind}'s stream between ${first.src} and its ${later.kind} (${later.src}); ` +
            `one thread issues a send/recv pair together, so move this op before the ${first.kind} or after the ${later.kind}`,
        );
      }
    }
  }

  private emit(
    out: NativeOpList,
    stream: number,
    nameId: number,
    c: Omit<NativeCollective, 'parts'> & { parts: Part[] },
  ): void {
    const values = new Float64Array(c.parts.length * nativeCollectivePartStride);
    c.parts.forEach((p, i) => {
      values.set(
        [p.call, p.stream, p.sendBuffer, p.sendOffset, p.recvBuffer, p.recvOffset, p.rank, p.peer],
        i * nativeCollectivePartStride,
      );
    });
    const index = this.collectives.push({ ...c, parts: values }) - 1;
    out.push({ code: NativeOpCode.Collective, stream, args: [index], nameId });
  }
}
