import { MemKind, OpFlag, OpKind, noRef, packMemKinds } from '@streamscope/trace';
import type {
  BufferKind,
  PlanCopy,
  PlanHostFunc,
  PlanKernel,
  PlanMemset,
} from '@streamscope/workload';
import type { CmdSlot } from './command-store.ts';
import { CmdKind, CopyDir } from './command-store.ts';
import type { SimCore } from './core.ts';
import { FixedName } from './fixed-names.ts';

/** Device work a host call can issue (also the nodes of a graph). */
export type WorkOp = PlanKernel | PlanCopy | PlanMemset | PlanHostFunc;

const copyKinds: Record<PlanCopy['direction'], number> = {
  htod: OpKind.CopyHtoD,
  dtoh: OpKind.CopyDtoH,
  dtod: OpKind.CopyDtoD,
  ptop: OpKind.CopyPtoP,
  htoh: OpKind.CopyHtoH,
};

const copyNames: Record<PlanCopy['direction'], FixedName> = {
  htod: FixedName.MemcpyHtoD,
  dtoh: FixedName.MemcpyDtoH,
  dtod: FixedName.MemcpyDtoD,
  ptop: FixedName.MemcpyPtoP,
  htoh: FixedName.MemcpyHtoH,
};

function memKind(kind: BufferKind): MemKind {
  return kind === 'host-pageable'
    ? MemKind.Pageable
    : kind === 'host-pinned'
      ? MemKind.Pinned
      : MemKind.Device;
}

/** Builds (does not issue) the command for a kernel, copy, memset or host function. */
export class CommandFactory {
  private lastKernel: PlanKernel | null = null;
  private lastLaunch = 0;
  // Kernels in a loop share their name's string: compare with the last one before hashing it.
  private lastKernelName = '';
  private lastKernelNameId = -1;

  constructor(private readonly core: SimCore) {}

  /** The command of `op` on plan stream `stream` (its own, or a graph launch's). */
  build(
    op: WorkOp,
    stream: number,
    correlationId: number,
    arrivalNs: number,
    flags: number,
    stagedWhole = false,
  ): CmdSlot {
    switch (op.kind) {
      case 'kernel':
        return this.kernel(op, stream, correlationId, arrivalNs, flags);
      case 'copy':
        return this.copy(op, stream, correlationId, arrivalNs, flags, stagedWhole);
      case 'memset':
        return this.memset(op, stream, correlationId, arrivalNs, flags);
      case 'hostFunc': {
        const core = this.core;
        const cmd = core.cmds.alloc(
          CmdKind.Delay,
          core.stream(stream).plan.id,
          arrivalNs,
          OpKind.HostFunc,
          core.writer.name(op.name),
          correlationId,
          0,
          0,
          noRef,
          flags,
        );
        core.cmds.delayNs[cmd] = op.durNs;
        return cmd;
      }
    }
  }

  private launchIndex(op: PlanKernel): number {
    // Kernels in a loop share their config: compare with the last one instead of interning.
    const last = this.lastKernel;
    if (
      last === null ||
      last.grid[0] !== op.grid[0] ||
      last.grid[1] !== op.grid[1] ||
      last.grid[2] !== op.grid[2] ||
      last.block[0] !== op.block[0] ||
      last.block[1] !== op.block[1] ||
      last.block[2] !== op.block[2] ||
      last.sharedMemBytes !== op.sharedMemBytes
    ) {
      this.lastKernel = op;
      this.lastLaunch = this.core.trace.launches.intern({
        gridX: op.grid[0],
        gridY: op.grid[1],
        gridZ: op.grid[2],
        blockX: op.block[0],
        blockY: op.block[1],
        blockZ: op.block[2],
        sharedMemBytes: op.sharedMemBytes,
        registersPerThread: 0,
      });
    }
    return this.lastLaunch;
  }

  private kernelNameId(name: string): number {
    if (name !== this.lastKernelName || this.lastKernelNameId < 0) {
      this.lastKernelName = name;
      this.lastKernelNameId = this.core.writer.name(name);
    }
    return this.lastKernelNameId;
  }

  private kernel(
    op: PlanKernel,
    stream: number,
    correlationId: number,
    arrivalNs: number,
    flags: number,
  ): CmdSlot {
    const core = this.core;
    const c = core.cmds;
    const cmd = c.alloc(
      CmdKind.Compute,
      core.stream(stream).plan.id,
      arrivalNs,
      OpKind.Kernel,
      this.kernelNameId(op.name),
      correlationId,
      0,
      0,
      this.launchIndex(op),
      flags,
    );
    const threads = op.block[0] * op.block[1] * op.block[2];
    const warpsPerBlock = Math.ceil(threads / 32);
    c.warpsPerBlock[cmd] = warpsPerBlock;
    c.threadsPerBlock[cmd] = warpsPerBlock * 32;
    c.smemPerBlock[cmd] = op.sharedMemBytes;
    c.blocksLeft[cmd] = op.grid[0] * op.grid[1] * op.grid[2];
    if (op.mode === 'timed') {
      c.blockNs[cmd] = op.durNs + core.profile.spinOffsetNs;
    } else {
      c.iterations[cmd] = op.iterations;
    }
    return cmd;
  }

  /** Memsets and DtoD copies run as blocks that fill the GPU for bytes / bandwidth. */
  private fullGpu(cmd: CmdSlot, bytesPerS: number): void {
    const d = this.core.profile.device;
    const c = this.core.cmds;
    c.blocksLeft[cmd] = d.smCount;
    c.threadsPerBlock[cmd] = d.maxThreadsPerSm;
    c.warpsPerBlock[cmd] = d.maxThreadsPerSm / 32;
    c.blockNs[cmd] = (c.bytes[cmd]! / bytesPerS) * 1e9 + this.core.profile.spinOffsetNs;
  }

  private copy(
    op: PlanCopy,
    stream: number,
    correlationId: number,
    arrivalNs: number,
    flags: number,
    stagedWhole: boolean,
  ): CmdSlot {
    const core = this.core;
    const c = core.cmds;
    const p = core.profile;
    const bw = p.copyBandwidthBytesPerS;
    const src = core.plan.buffers[op.srcBuffer]!;
    const dst = core.plan.buffers[op.dstBuffer]!;
    // One staged chunk moves at the pinned rate; longer pageable copies at what staging sustains.
    const pageable = (src.kind === 'host-pageable' || dst.kind === 'host-pageable') && !stagedWhole;
    const memKinds = packMemKinds(memKind(src.kind), memKind(dst.kind));
    const kind =
      op.direction === 'dtod'
        ? CmdKind.Compute
        : op.direction === 'htoh'
          ? CmdKind.Delay
          : CmdKind.Copy;
    const name = core.writer.fixed(copyNames[op.direction]);
    const cmd = c.alloc(
      kind,
      core.stream(stream).plan.id,
      arrivalNs,
      copyKinds[op.direction],
      name,
      correlationId,
      op.bytes,
      memKinds,
      noRef,
      flags | (op.async ? 0 : OpFlag.Sync),
    );
    if (kind === CmdKind.Compute) {
      this.fullGpu(cmd, bw.dtod);
    } else if (kind === CmdKind.Delay) {
      c.delayNs[cmd] = (op.bytes / bw.htoh) * 1e9;
    } else {
      const bytesPerS =
        op.direction === 'htod'
          ? pageable
            ? bw.htodPageable
            : bw.htodPinned
          : op.direction === 'dtoh'
            ? pageable
              ? bw.dtohPageable
              : bw.dtohPinned
            : bw.ptop;
      c.direction[cmd] =
        op.direction === 'htod'
          ? CopyDir.HtoD
          : op.direction === 'dtoh'
            ? CopyDir.DtoH
            : CopyDir.PtoP;
      const baseBytesPerNs = bytesPerS / 1e9;
      c.baseBytesPerNs[cmd] = baseBytesPerNs;
      // The engine's fixed setup time, as bytes at full speed.
      c.bytesLeft[cmd] = op.bytes + p.copyFixedNs * baseBytesPerNs;
    }
    return cmd;
  }

  private memset(
    op: PlanMemset,
    stream: number,
    correlationId: number,
    arrivalNs: number,
    flags: number,
  ): CmdSlot {
    const core = this.core;
    const cmd = core.cmds.alloc(
      CmdKind.Compute,
      core.stream(stream).plan.id,
      arrivalNs,
      OpKind.Memset,
      core.writer.fixed(FixedName.Memset),
      correlationId,
      op.bytes,
      packMemKinds(MemKind.Unknown, memKind(core.plan.buffers[op.buffer]!.kind)),
      noRef,
      flags | (op.async ? 0 : OpFlag.Sync),
    );
    this.fullGpu(cmd, core.profile.memsetBytesPerS);
    return cmd;
  }
}
