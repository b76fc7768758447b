import type { Ctx, ExpandBase } from './expand-types.ts';
import type { CopyDirection, PlanBuffer, PlanOp } from './plan.ts';
import type { WorkloadOp } from './schema.ts';
import { at } from './values.ts';

const maxGrid = [2 ** 31 - 1, 65_535, 65_535] as const;
const maxBlockDims = [1024, 1024, 64] as const;
const maxSharedMemBytes = 227 * 1024;

/**
 * Expands the ops that touch buffers or SMs (copy, kernel, memset, malloc/free) and checks
 * them: ranges inside buffers, launch shapes, allocation state in issue order.
 */
export class WorkExpander {
  /** Allocation state of op-allocated buffers, in issue order of the threads as expanded. */
  private readonly allocated = new Map<number, boolean>();
  private readonly recentDims: (readonly [number, number, number])[] = [];

  constructor(private readonly base: ExpandBase) {}

  private usable(buffer: number, ctx: Ctx, path: string): boolean {
    const b = this.base.decl.buffers[buffer]!;
    if (b.allocation === 'op' && this.allocated.get(buffer) !== true) {
      this.base.issues.add(
        path,
        `buffer "${b.name}" is used while not allocated (before its malloc or after its free)${at(ctx.scope)}`,
      );
      return false;
    }
    return true;
  }

  /** The stream of a copy or memset: any stream when async, a default stream when synchronous. */
  private issueStream(
    ctx: Ctx,
    op: { readonly async: boolean; readonly stream?: string | undefined },
    path: string,
    what: string,
  ): number | undefined {
    return op.async
      ? this.base.stream(ctx, op.stream, `${path}.stream`)
      : this.base.defaultStreamOnly(ctx, op.stream, `${path}.stream`, what);
  }

  private range(
    buffer: PlanBuffer,
    offsetValue: number | string | undefined,
    bytesValue: number | string | undefined,
    ctx: Ctx,
    path: string,
    offsetField: string,
  ): { offset: number; bytes: number } | undefined {
    const offset =
      offsetValue === undefined
        ? 0
        : this.base.values.size(
            offsetValue,
            ctx.scope,
            `${path}.${offsetField}`,
            0,
            buffer.bytes - 1,
          );
    if (offset === undefined) {
      return undefined;
    }
    const bytes =
      bytesValue === undefined
        ? buffer.bytes - offset
        : this.base.values.size(
            bytesValue,
            ctx.scope,
            `${path}.bytes`,
            1,
            this.base.limits.maxTotalCopyBytes,
          );
    if (bytes === undefined) {
      return undefined;
    }
    if (offset + bytes > buffer.bytes) {
      this.base.issues.add(
        `${path}.bytes`,
        `bytes [${offset}, ${offset + bytes}) fall outside buffer "${buffer.name}" of ${buffer.bytes} bytes${at(ctx.scope)}`,
      );
      return undefined;
    }
    return { offset, bytes };
  }

  copy(ctx: Ctx, op: Extract<WorkloadOp, { op: 'copy' }>, path: string): void {
    const stream = this.issueStream(ctx, op, path, 'a synchronous copy (cudaMemcpy)');
    const srcId = this.base.decl.buffer(op.src, ctx.scope, `${path}.src`);
    const dstId = this.base.decl.buffer(op.dst, ctx.scope, `${path}.dst`);
    const inGraphOk = op.async || this.base.notInGraph(ctx, path, 'a synchronous copy');
    // Check what can be checked even when another field is wrong: every problem at once.
    const src = srcId === undefined ? undefined : this.base.decl.buffers[srcId]!;
    const dst = dstId === undefined ? undefined : this.base.decl.buffers[dstId]!;
    const from =
      src === undefined
        ? undefined
        : this.range(src, op.srcOffset, op.bytes, ctx, path, 'srcOffset');
    const to =
      dst === undefined
        ? undefined
        : this.range(dst, op.dstOffset, from?.bytes ?? op.bytes, ctx, path, 'dstOffset');
    if (
      stream === undefined ||
      srcId === undefined ||
      dstId === undefined ||
      src === undefined ||
      dst === undefined ||
      from === undefined ||
      to === undefined ||
      !inGraphOk
    ) {
      return;
    }
    if (!this.usable(srcId, ctx, `${path}.src`) || !this.usable(dstId, ctx, `${path}.dst`)) {
      return;
    }
    if (ctx.graph !== null && (src.kind === 'host-pageable' || dst.kind === 'host-pageable')) {
      this.base.issues.add(
        path,
        'a copy from or to pageable memory cannot be captured into a graph',
      );
      return;
    }
    const plan: PlanOp = {
      kind: 'copy',
      opId: this.base.id(),
      src: path,
      stream,
      direction: direction(src, dst),
      srcBuffer: srcId,
      srcOffset: from.offset,
      dstBuffer: dstId,
      dstOffset: to.offset,
      bytes: from.bytes,
      async: op.async,
    };
    this.base.emit(ctx, plan, path, 0, from.bytes);
  }

  kernel(ctx: Ctx, op: Extract<WorkloadOp, { op: 'kernel' }>, path: string): void {
    const stream = this.base.stream(ctx, op.stream, `${path}.stream`);
    if ((op.duration === undefined) === (op.iterations === undefined)) {
      this.base.issues.add(
        path,
        'a kernel needs exactly one of duration (timed) or iterations (fixed work)',
      );
      return;
    }
    const durNs =
      op.duration === undefined
        ? 0
        : this.base.values.duration(
            op.duration,
            ctx.scope,
            `${path}.duration`,
            0,
            this.base.limits.maxOpDurationNs,
          );
    const iterations =
      op.iterations === undefined
        ? 0
        : this.base.values.count(
            op.iterations,
            ctx.scope,
            `${path}.iterations`,
            1,
            this.base.limits.maxIterationsPerBlock,
          );
    const grid = this.dims(op.grid ?? 1, maxGrid, ctx, `${path}.grid`);
    const block = this.dims(op.block ?? 256, maxBlockDims, ctx, `${path}.block`);
    const sharedMemBytes =
      op.sharedMem === undefined
        ? 0
        : this.base.values.size(op.sharedMem, ctx.scope, `${path}.sharedMem`, 0, maxSharedMemBytes);
    if (
      stream === undefined ||
      durNs === undefined ||
      iterations === undefined ||
      grid === undefined ||
      block === undefined ||
      sharedMemBytes === undefined
    ) {
      return;
    }
    if (block[0] * block[1] * block[2] > 1024) {
      this.base.issues.add(
        `${path}.block`,
        `a block has at most 1024 threads, not ${block[0] * block[1] * block[2]}`,
      );
      return;
    }
    const name = this.base.values.interpolate(op.name ?? 'kernel', ctx.scope, `${path}.name`);
    const mode = op.duration === undefined ? 'work' : 'timed';
    const plan: PlanOp = {
      kind: 'kernel',
      opId: this.base.id(),
      src: path,
      stream,
      name,
      mode,
      durNs,
      iterations,
      grid,
      block,
      sharedMemBytes,
    };
    this.base.emit(ctx, plan, path, durNs, 0);
  }

  private dims(
    value: number | string | readonly (number | string)[],
    max: readonly [number, number, number],
    ctx: Ctx,
    path: string,
  ): readonly [number, number, number] | undefined {
    const parts = Array.isArray(value) ? value : [value, 1, 1];
    const out: [number, number, number] = [0, 0, 0];
    for (let k = 0; k < 3; k++) {
      const v = this.base.values.count(
        parts[k] as number | string,
        ctx.scope,
        Array.isArray(value) ? `${path}[${k}]` : path,
        1,
        max[k]!,
      );
      if (v === undefined) {
        return undefined;
      }
      out[k] = v;
    }
    return this.shared(out);
  }

  /** Kernels in a loop share their grid and block arrays: fewer objects in a large plan. */
  private shared(dims: readonly [number, number, number]): readonly [number, number, number] {
    for (const d of this.recentDims) {
      if (d[0] === dims[0] && d[1] === dims[1] && d[2] === dims[2]) {
        return d;
      }
    }
    if (this.recentDims.length >= 4) {
      this.recentDims.shift();
    }
    this.recentDims.push(dims);
    return dims;
  }

  memset(ctx: Ctx, op: Extract<WorkloadOp, { op: 'memset' }>, path: string): void {
    const stream = this.issueStream(ctx, op, path, 'a synchronous memset (cudaMemset)');
    const bufferId = this.base.decl.buffer(op.dst, ctx.scope, `${path}.dst`);
    if (
      stream === undefined ||
      bufferId === undefined ||
      !this.usable(bufferId, ctx, `${path}.dst`)
    ) {
      return;
    }
    if (!op.async && !this.base.notInGraph(ctx, path, 'a synchronous memset')) {
      return;
    }
    const buffer = this.base.decl.buffers[bufferId]!;
    if (buffer.kind === 'host-pageable') {
      this.base.issues.add(
        `${path}.dst`,
        `cudaMemset needs device or pinned memory; "${buffer.name}" is pageable`,
      );
      return;
    }
    const r = this.range(buffer, op.offset, op.bytes, ctx, path, 'offset');
    if (r === undefined) {
      return;
    }
    const plan: PlanOp = {
      kind: 'memset',
      opId: this.base.id(),
      src: path,
      stream,
      buffer: bufferId,
      offset: r.offset,
      bytes: r.bytes,
      value: op.value,
      async: op.async,
    };
    this.base.emit(ctx, plan, path, 0, r.bytes);
  }

  memory(ctx: Ctx, op: Extract<WorkloadOp, { op: 'malloc' | 'free' }>, path: string): void {
    const bufferId = this.base.decl.buffer(op.buffer, ctx.scope, `${path}.buffer`);
    if (!this.base.notInGraph(ctx, path, `${op.op}`) || bufferId === undefined) {
      return;
    }
    const buffer = this.base.decl.buffers[bufferId]!;
    let stream: number | null = null;
    if (op.async) {
      if (buffer.kind !== 'stream-ordered') {
        this.base.issues.add(
          `${path}.async`,
          `cudaMallocAsync/cudaFreeAsync need a stream-ordered buffer; "${buffer.name}" is ${buffer.kind}`,
        );
        return;
      }
      const s = this.base.stream(ctx, op.stream, `${path}.stream`);
      if (s === undefined) {
        return;
      }
      stream = s;
    } else {
      if (buffer.kind === 'stream-ordered') {
        this.base.issues.add(
          `${path}.async`,
          `stream-ordered buffer "${buffer.name}" is allocated with async: true (cudaMallocAsync)`,
        );
        return;
      }
      if (op.stream !== undefined) {
        this.base.issues.add(`${path}.stream`, `a synchronous ${op.op} takes no stream`);
        return;
      }
    }
    const isAllocated = this.allocated.get(bufferId) === true;
    if (op.op === 'malloc' && isAllocated) {
      this.base.issues.add(
        `${path}.buffer`,
        `buffer "${buffer.name}" is allocated again before it is freed${at(ctx.scope)}`,
      );
      return;
    }
    if (op.op === 'free' && !isAllocated) {
      this.base.issues.add(
        `${path}.buffer`,
        `buffer "${buffer.name}" is freed while not allocated${at(ctx.scope)}`,
      );
      return;
    }
    this.allocated.set(bufferId, op.op === 'malloc');
    this.base.emit(
      ctx,
      { kind: op.op, opId: this.base.id(), src: path, buffer: bufferId, async: op.async, stream },
      path,
      0,
      0,
    );
  }
}

function isDeviceSide(b: PlanBuffer): boolean {
  return b.kind === 'device' || b.kind === 'stream-ordered';
}

function direction(src: PlanBuffer, dst: PlanBuffer): CopyDirection {
  if (isDeviceSide(src)) {
    if (isDeviceSide(dst)) {
      return src.device === dst.device ? 'dtod' : 'ptop';
    }
    return 'dtoh';
  }
  return isDeviceSide(dst) ? 'htod' : 'htoh';
}
