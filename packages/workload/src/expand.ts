import type { Declarations } from './declarations.ts';
import type { IssueList } from './issues.ts';
import type { WorkloadLimits } from './limits.ts';
import type {
  CopyDirection,
  PlanBuffer,
  PlanGraph,
  PlanOp,
  PlanStreamWait,
  PlanEventSync,
} from './plan.ts';
import type { WorkloadOp } from './schema.ts';
import type { Values } from './values.ts';
import { at } from './values.ts';

export interface ThreadCtx {
  readonly id: number;
  readonly name: string;
  readonly device: number;
  readonly ops: PlanOp[];
  readonly graphs: Map<string, number>;
}

interface GraphCtx {
  readonly id: number;
  readonly stream: number;
  readonly nodes: PlanOp[];
  durationNs: number;
  copyBytes: number;
}

interface Ctx {
  readonly thread: ThreadCtx;
  readonly scope: Map<string, number>;
  readonly graph: GraphCtx | null;
  readonly out: PlanOp[];
  readonly depth: number;
}

/** The first record of an event by one thread. */
export interface RecordSite {
  readonly thread: number;
  readonly opId: number;
  readonly index: number;
  readonly path: string;
}

/** A wait (streamWait or eventSync) to bind once every thread is expanded. */
export interface WaitSite {
  readonly thread: number;
  readonly index: number;
  readonly event: number;
  readonly path: string;
}

const maxGrid = [2 ** 31 - 1, 65_535, 65_535] as const;
const maxBlockDims = [1024, 1024, 64] as const;
const maxSharedMemBytes = 227 * 1024;

/** Expands spec ops into plan ops, checking each against the declarations and limits. */
export class Expander {
  readonly graphs: PlanGraph[] = [];
  readonly records = new Map<number, RecordSite[]>();
  readonly waits: WaitSite[] = [];
  opCount = 0;
  executedOpCount = 0;
  declaredDurationNs = 0;
  private copyBytes = 0;
  private nextOpId = 0;
  private stopped = false;
  private iterations = 0;
  /** Allocation state of op-allocated buffers, in issue order of the threads as expanded. */
  private readonly allocated = new Map<number, boolean>();

  constructor(
    private readonly issues: IssueList,
    private readonly values: Values,
    private readonly limits: WorkloadLimits,
    private readonly decl: Declarations,
  ) {}

  expandThread(thread: ThreadCtx, ops: readonly WorkloadOp[], path: string): void {
    this.block({ thread, scope: new Map(), graph: null, out: thread.ops, depth: 0 }, ops, path);
  }

  private block(ctx: Ctx, ops: readonly WorkloadOp[], path: string): void {
    for (let i = 0; i < ops.length && !this.stopped; i++) {
      this.op(ctx, ops[i]!, `${path}[${i}]`);
    }
  }

  private emit(ctx: Ctx, op: PlanOp, path: string, durationNs: number, bytes: number): void {
    this.opCount++;
    if (ctx.graph !== null) {
      ctx.graph.durationNs += durationNs;
      ctx.graph.copyBytes += bytes;
      ctx.out.push(op);
      return;
    }
    this.account(1, durationNs, bytes, path);
    ctx.out.push(op);
  }

  private account(ops: number, durationNs: number, bytes: number, path: string): void {
    this.executedOpCount += ops;
    this.declaredDurationNs += durationNs;
    this.copyBytes += bytes;
    if (this.executedOpCount > this.limits.maxOps) {
      this.issues.add(path, `the workload runs more than ${this.limits.maxOps} ops (limit maxOps)`);
      this.stopped = true;
    } else if (this.declaredDurationNs > this.limits.maxTotalDurationNs) {
      this.issues.add(
        path,
        `declared durations add up to more than ${this.limits.maxTotalDurationNs} ns (limit maxTotalDurationNs)`,
      );
      this.stopped = true;
    } else if (this.copyBytes > this.limits.maxTotalCopyBytes) {
      this.issues.add(
        path,
        `copies and memsets move more than ${this.limits.maxTotalCopyBytes} bytes (limit maxTotalCopyBytes)`,
      );
      this.stopped = true;
    }
  }

  private id(): number {
    return this.nextOpId++;
  }

  private stream(ctx: Ctx, ref: string | undefined, path: string): number | undefined {
    if (ctx.graph !== null) {
      if (ref === undefined) {
        return ctx.graph.stream;
      }
      const s = this.decl.stream(
        ref,
        ctx.scope,
        path,
        ctx.thread.id,
        ctx.thread.name,
        ctx.thread.device,
      );
      if (s !== undefined && s !== ctx.graph.stream) {
        this.issues.add(
          path,
          `graph nodes are captured on the graph's stream; "${ref}" is another stream (branches are not supported)`,
        );
        return undefined;
      }
      return s;
    }
    return this.decl.stream(
      ref,
      ctx.scope,
      path,
      ctx.thread.id,
      ctx.thread.name,
      ctx.thread.device,
    );
  }

  private notInGraph(ctx: Ctx, path: string, what: string): boolean {
    if (ctx.graph !== null) {
      this.issues.add(path, `${what} cannot be captured into a graph`);
      return false;
    }
    return true;
  }

  private defaultStreamOnly(
    ctx: Ctx,
    ref: string | undefined,
    path: string,
    what: string,
  ): number | undefined {
    if (ref !== undefined && ref !== 'legacy' && ref !== 'per-thread') {
      this.issues.add(
        path,
        `${what} runs on a default stream ("legacy" or "per-thread"); set async: true to pick stream "${ref}"`,
      );
      return undefined;
    }
    return this.stream(ctx, ref, path);
  }

  private usable(buffer: number, ctx: Ctx, path: string): boolean {
    const b = this.decl.buffers[buffer]!;
    if (b.allocation === 'op' && this.allocated.get(buffer) !== true) {
      this.issues.add(
        path,
        `buffer "${b.name}" is used while not allocated (before its malloc or after its free)${at(ctx.scope)}`,
      );
      return false;
    }
    return true;
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
        : this.values.size(offsetValue, ctx.scope, `${path}.${offsetField}`, 0, buffer.bytes - 1);
    if (offset === undefined) {
      return undefined;
    }
    const bytes =
      bytesValue === undefined
        ? buffer.bytes - offset
        : this.values.size(
            bytesValue,
            ctx.scope,
            `${path}.bytes`,
            1,
            this.limits.maxTotalCopyBytes,
          );
    if (bytes === undefined) {
      return undefined;
    }
    if (offset + bytes > buffer.bytes) {
      this.issues.add(
        `${path}.bytes`,
        `bytes [${offset}, ${offset + bytes}) fall outside buffer "${buffer.name}" of ${buffer.bytes} bytes${at(ctx.scope)}`,
      );
      return undefined;
    }
    return { offset, bytes };
  }

  private op(ctx: Ctx, op: WorkloadOp, path: string): void {
    switch (op.op) {
      case 'repeat':
        return this.repeat(ctx, op, path);
      case 'range':
        return this.rangeBlock(ctx, op, path);
      case 'graph':
        return this.graph(ctx, op, path);
      case 'copy':
        return this.copy(ctx, op, path);
      case 'kernel':
        return this.kernel(ctx, op, path);
      case 'memset':
        return this.memset(ctx, op, path);
      case 'eventRecord': {
        const stream = this.stream(ctx, op.stream, `${path}.stream`);
        const event = this.decl.event(op.event, ctx.scope, `${path}.event`);
        if (
          !this.notInGraph(ctx, path, 'an event record') ||
          stream === undefined ||
          event === undefined
        ) {
          return;
        }
        const opId = this.id();
        const sites = this.records.get(event) ?? [];
        if (!sites.some((s) => s.thread === ctx.thread.id)) {
          sites.push({ thread: ctx.thread.id, opId, index: ctx.out.length, path });
          this.records.set(event, sites);
        }
        return this.emit(ctx, { kind: 'eventRecord', opId, src: path, stream, event }, path, 0, 0);
      }
      case 'streamWait': {
        const stream = this.stream(ctx, op.stream, `${path}.stream`);
        const event = this.decl.event(op.event, ctx.scope, `${path}.event`);
        if (
          !this.notInGraph(ctx, path, 'a stream wait') ||
          stream === undefined ||
          event === undefined
        ) {
          return;
        }
        this.waits.push({ thread: ctx.thread.id, index: ctx.out.length, event, path });
        const wait: PlanStreamWait = {
          kind: 'streamWait',
          opId: this.id(),
          src: path,
          stream,
          event,
          afterRecord: null,
        };
        return this.emit(ctx, wait, path, 0, 0);
      }
      case 'eventSync': {
        const event = this.decl.event(op.event, ctx.scope, `${path}.event`);
        if (!this.notInGraph(ctx, path, 'cudaEventSynchronize') || event === undefined) {
          return;
        }
        this.waits.push({ thread: ctx.thread.id, index: ctx.out.length, event, path });
        const wait: PlanEventSync = {
          kind: 'eventSync',
          opId: this.id(),
          src: path,
          event,
          afterRecord: null,
        };
        return this.emit(ctx, wait, path, 0, 0);
      }
      case 'streamSync': {
        const stream = this.stream(ctx, op.stream, `${path}.stream`);
        if (!this.notInGraph(ctx, path, 'cudaStreamSynchronize') || stream === undefined) {
          return;
        }
        return this.emit(
          ctx,
          { kind: 'streamSync', opId: this.id(), src: path, stream },
          path,
          0,
          0,
        );
      }
      case 'deviceSync':
        if (!this.notInGraph(ctx, path, 'cudaDeviceSynchronize')) {
          return;
        }
        return this.emit(
          ctx,
          { kind: 'deviceSync', opId: this.id(), src: path, device: ctx.thread.device },
          path,
          0,
          0,
        );
      case 'hostFunc': {
        const stream = this.stream(ctx, op.stream, `${path}.stream`);
        const durNs = this.values.duration(
          op.duration,
          ctx.scope,
          `${path}.duration`,
          0,
          this.limits.maxOpDurationNs,
        );
        if (stream === undefined || durNs === undefined) {
          return;
        }
        const name = this.values.interpolate(op.name ?? 'host function', ctx.scope, `${path}.name`);
        return this.emit(
          ctx,
          { kind: 'hostFunc', opId: this.id(), src: path, stream, name, durNs },
          path,
          durNs,
          0,
        );
      }
      case 'hostWork': {
        const durNs = this.values.duration(
          op.duration,
          ctx.scope,
          `${path}.duration`,
          0,
          this.limits.maxOpDurationNs,
        );
        if (!this.notInGraph(ctx, path, 'host work') || durNs === undefined) {
          return;
        }
        const name = this.values.interpolate(op.name ?? 'host work', ctx.scope, `${path}.name`);
        return this.emit(
          ctx,
          { kind: 'hostWork', opId: this.id(), src: path, name, durNs },
          path,
          durNs,
          0,
        );
      }
      case 'malloc':
      case 'free':
        return this.memory(ctx, op, path);
      case 'graphLaunch': {
        const stream = this.stream(ctx, op.stream, `${path}.stream`);
        const count = this.values.count(
          op.count,
          ctx.scope,
          `${path}.count`,
          1,
          this.limits.maxGraphLaunchCount,
        );
        if (
          !this.notInGraph(ctx, path, 'a graph launch') ||
          stream === undefined ||
          count === undefined
        ) {
          return;
        }
        const graphId = ctx.thread.graphs.get(
          this.values.interpolate(op.graph, ctx.scope, `${path}.graph`),
        );
        if (graphId === undefined) {
          this.issues.add(
            `${path}.graph`,
            `graph "${op.graph}" is launched before this thread captures it`,
          );
          return;
        }
        const g = this.graphs[graphId]!;
        this.opCount++;
        ctx.out.push({
          kind: 'graphLaunch',
          opId: this.id(),
          src: path,
          graph: graphId,
          stream,
          count,
        });
        const nodes = g.ops.length;
        const ctxGraph = this.graphTotals.get(graphId) ?? { durationNs: 0, copyBytes: 0 };
        this.account(
          1 + nodes * count,
          ctxGraph.durationNs * count,
          ctxGraph.copyBytes * count,
          path,
        );
        return;
      }
    }
  }

  private readonly graphTotals = new Map<number, { durationNs: number; copyBytes: number }>();

  private repeat(ctx: Ctx, op: Extract<WorkloadOp, { op: 'repeat' }>, path: string): void {
    const count = this.values.count(op.count, ctx.scope, `${path}.count`, 0, this.limits.maxOps);
    if (count === undefined || !this.nest(ctx, path)) {
      return;
    }
    if (ctx.scope.has(op.var)) {
      this.issues.add(
        `${path}.var`,
        `loop variable "${op.var}" is already used by an enclosing repeat`,
      );
      return;
    }
    const scope = new Map(ctx.scope);
    const inner: Ctx = { ...ctx, scope, depth: ctx.depth + 1 };
    for (let k = 0; k < count && !this.stopped; k++) {
      // Empty or op-less loop bodies cost time too: bound the iterations, not only the ops.
      if (++this.iterations > 2 * this.limits.maxOps) {
        this.issues.add(
          path,
          `loops run more than ${2 * this.limits.maxOps} iterations (twice the limit maxOps)`,
        );
        this.stopped = true;
        return;
      }
      scope.set(op.var, k);
      this.block(inner, op.ops, `${path}.ops`);
    }
  }

  private nest(ctx: Ctx, path: string): boolean {
    if (ctx.depth >= this.limits.maxNesting) {
      this.issues.add(path, `blocks nest deeper than ${this.limits.maxNesting} (limit maxNesting)`);
      return false;
    }
    return true;
  }

  private rangeBlock(ctx: Ctx, op: Extract<WorkloadOp, { op: 'range' }>, path: string): void {
    if (!this.notInGraph(ctx, path, 'an NVTX range') || !this.nest(ctx, path)) {
      return;
    }
    const name = this.values.interpolate(op.name, ctx.scope, `${path}.name`);
    this.emit(ctx, { kind: 'rangePush', opId: this.id(), src: path, name }, path, 0, 0);
    this.block({ ...ctx, depth: ctx.depth + 1 }, op.ops, `${path}.ops`);
    this.emit(ctx, { kind: 'rangePop', opId: this.id(), src: path }, path, 0, 0);
  }

  private graph(ctx: Ctx, op: Extract<WorkloadOp, { op: 'graph' }>, path: string): void {
    if (!this.notInGraph(ctx, path, 'a graph') || !this.nest(ctx, path)) {
      return;
    }
    const stream = this.decl.stream(
      op.stream,
      ctx.scope,
      `${path}.stream`,
      ctx.thread.id,
      ctx.thread.name,
      ctx.thread.device,
    );
    if (stream === undefined) {
      return;
    }
    if (this.decl.streams[stream]?.type === 'legacy-default') {
      this.issues.add(
        `${path}.stream`,
        'the legacy default stream cannot be captured into a graph',
      );
      return;
    }
    const id = this.graphs.length;
    const g: GraphCtx = { id, stream, nodes: [], durationNs: 0, copyBytes: 0 };
    const name = this.values.interpolate(op.name, ctx.scope, `${path}.name`);
    this.block({ ...ctx, graph: g, out: g.nodes, depth: ctx.depth + 1 }, op.ops, `${path}.ops`);
    if (g.nodes.length === 0) {
      this.issues.add(`${path}.ops`, 'a graph needs at least one node');
      return;
    }
    this.graphs.push({ id, name, stream, ops: g.nodes });
    this.graphTotals.set(id, { durationNs: g.durationNs, copyBytes: g.copyBytes });
    ctx.thread.graphs.set(name, id);
    this.emit(ctx, { kind: 'graphCapture', opId: this.id(), src: path, graph: id }, path, 0, 0);
  }

  private copy(ctx: Ctx, op: Extract<WorkloadOp, { op: 'copy' }>, path: string): void {
    const stream = op.async
      ? this.stream(ctx, op.stream, `${path}.stream`)
      : this.defaultStreamOnly(ctx, op.stream, `${path}.stream`, 'a synchronous copy (cudaMemcpy)');
    const srcId = this.decl.buffer(op.src, ctx.scope, `${path}.src`);
    const dstId = this.decl.buffer(op.dst, ctx.scope, `${path}.dst`);
    const inGraphOk = op.async || this.notInGraph(ctx, path, 'a synchronous copy');
    // Check what can be checked even when another field is wrong: every problem at once.
    const src = srcId === undefined ? undefined : this.decl.buffers[srcId]!;
    const dst = dstId === undefined ? undefined : this.decl.buffers[dstId]!;
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
      this.issues.add(path, 'a copy from or to pageable memory cannot be captured into a graph');
      return;
    }
    const plan: PlanOp = {
      kind: 'copy',
      opId: this.id(),
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
    this.emit(ctx, plan, path, 0, from.bytes);
  }

  private kernel(ctx: Ctx, op: Extract<WorkloadOp, { op: 'kernel' }>, path: string): void {
    const stream = this.stream(ctx, op.stream, `${path}.stream`);
    if ((op.duration === undefined) === (op.iterations === undefined)) {
      this.issues.add(
        path,
        'a kernel needs exactly one of duration (timed) or iterations (fixed work)',
      );
      return;
    }
    const durNs =
      op.duration === undefined
        ? 0
        : this.values.duration(
            op.duration,
            ctx.scope,
            `${path}.duration`,
            0,
            this.limits.maxOpDurationNs,
          );
    const iterations =
      op.iterations === undefined
        ? 0
        : this.values.count(
            op.iterations,
            ctx.scope,
            `${path}.iterations`,
            1,
            this.limits.maxIterationsPerBlock,
          );
    const grid = this.dims(op.grid ?? 1, maxGrid, ctx, `${path}.grid`);
    const block = this.dims(op.block ?? 256, maxBlockDims, ctx, `${path}.block`);
    const sharedMemBytes =
      op.sharedMem === undefined
        ? 0
        : this.values.size(op.sharedMem, ctx.scope, `${path}.sharedMem`, 0, maxSharedMemBytes);
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
      this.issues.add(
        `${path}.block`,
        `a block has at most 1024 threads, not ${block[0] * block[1] * block[2]}`,
      );
      return;
    }
    const name = this.values.interpolate(op.name ?? 'kernel', ctx.scope, `${path}.name`);
    const mode = op.duration === undefined ? 'work' : 'timed';
    const plan: PlanOp = {
      kind: 'kernel',
      opId: this.id(),
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
    this.emit(ctx, plan, path, durNs, 0);
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
      const v = this.values.count(
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

  private readonly recentDims: (readonly [number, number, number])[] = [];

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

  private memset(ctx: Ctx, op: Extract<WorkloadOp, { op: 'memset' }>, path: string): void {
    const stream = op.async
      ? this.stream(ctx, op.stream, `${path}.stream`)
      : this.defaultStreamOnly(
          ctx,
          op.stream,
          `${path}.stream`,
          'a synchronous memset (cudaMemset)',
        );
    const bufferId = this.decl.buffer(op.dst, ctx.scope, `${path}.dst`);
    if (
      stream === undefined ||
      bufferId === undefined ||
      !this.usable(bufferId, ctx, `${path}.dst`)
    ) {
      return;
    }
    if (!op.async && !this.notInGraph(ctx, path, 'a synchronous memset')) {
      return;
    }
    const buffer = this.decl.buffers[bufferId]!;
    if (buffer.kind === 'host-pageable') {
      this.issues.add(
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
      opId: this.id(),
      src: path,
      stream,
      buffer: bufferId,
      offset: r.offset,
      bytes: r.bytes,
      value: op.value,
      async: op.async,
    };
    this.emit(ctx, plan, path, 0, r.bytes);
  }

  private memory(ctx: Ctx, op: Extract<WorkloadOp, { op: 'malloc' | 'free' }>, path: string): void {
    const bufferId = this.decl.buffer(op.buffer, ctx.scope, `${path}.buffer`);
    if (!this.notInGraph(ctx, path, `${op.op}`) || bufferId === undefined) {
      return;
    }
    const buffer = this.decl.buffers[bufferId]!;
    let stream: number | null = null;
    if (op.async) {
      if (buffer.kind !== 'stream-ordered') {
        this.issues.add(
          `${path}.async`,
          `cudaMallocAsync/cudaFreeAsync need a stream-ordered buffer; "${buffer.name}" is ${buffer.kind}`,
        );
        return;
      }
      const s = this.stream(ctx, op.stream, `${path}.stream`);
      if (s === undefined) {
        return;
      }
      stream = s;
    } else {
      if (buffer.kind === 'stream-ordered') {
        this.issues.add(
          `${path}.async`,
          `stream-ordered buffer "${buffer.name}" is allocated with async: true (cudaMallocAsync)`,
        );
        return;
      }
      if (op.stream !== undefined) {
        this.issues.add(`${path}.stream`, `a synchronous ${op.op} takes no stream`);
        return;
      }
    }
    const isAllocated = this.allocated.get(bufferId) === true;
    if (op.op === 'malloc' && isAllocated) {
      this.issues.add(
        `${path}.buffer`,
        `buffer "${buffer.name}" is allocated again before it is freed${at(ctx.scope)}`,
      );
      return;
    }
    if (op.op === 'free' && !isAllocated) {
      this.issues.add(
        `${path}.buffer`,
        `buffer "${buffer.name}" is freed while not allocated${at(ctx.scope)}`,
      );
      return;
    }
    this.allocated.set(bufferId, op.op === 'malloc');
    this.emit(
      ctx,
      { kind: op.op, opId: this.id(), src: path, buffer: bufferId, async: op.async, stream },
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
