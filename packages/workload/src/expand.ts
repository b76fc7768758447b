import type { Declarations } from './declarations.ts';
import { BlockExpander } from './expand-blocks.ts';
import { CollectiveExpander } from './expand-collectives.ts';
import { EventExpander } from './expand-events.ts';
import type { Ctx, ExpandBase, ThreadCtx } from './expand-types.ts';
import { WorkExpander } from './expand-work.ts';
import type { IssueList } from './issues.ts';
import type { WorkloadLimits } from './limits.ts';
import type { PlanOp } from './plan.ts';
import type { WorkloadOp } from './schema.ts';
import type { Values } from './values.ts';

type Op<K extends WorkloadOp['op']> = Extract<WorkloadOp, { op: K }>;

/**
 * Expands spec ops into plan ops, checking each against the declarations and limits. It walks
 * the blocks, counts ops against the limits and resolves streams; each op family has its own
 * expander: work (expand-work.ts), events and syncs (expand-events.ts), loops, ranges and
 * graphs (expand-blocks.ts), collectives and send/recv (expand-collectives.ts). Host work and host functions are expanded here.
 */
export class Expander implements ExpandBase {
  opCount = 0;
  executedOpCount = 0;
  declaredDurationNs = 0;
  readonly work: WorkExpander = new WorkExpander(this);
  readonly events: EventExpander = new EventExpander(this);
  readonly blocks: BlockExpander = new BlockExpander(this);
  readonly collectives: CollectiveExpander = new CollectiveExpander(this);
  private copyBytes = 0;
  private collectiveBytes = 0;
  private nextOpId = 0;
  private isStopped = false;
  /** Per block path, the paths of its ops. */
  private readonly opPaths = new Map<string, string[]>();

  constructor(
    readonly issues: IssueList,
    readonly values: Values,
    readonly limits: WorkloadLimits,
    readonly decl: Declarations,
  ) {}

  get stopped(): boolean {
    return this.isStopped;
  }

  stop(): void {
    this.isStopped = true;
  }

  expandThread(thread: ThreadCtx, ops: readonly WorkloadOp[], path: string): void {
    this.block({ thread, scope: new Map(), graph: null, out: thread.ops, depth: 0 }, ops, path);
  }

  block(ctx: Ctx, ops: readonly WorkloadOp[], path: string): void {
    // Every iteration of a loop names its ops by the same paths: share the strings (each plan
    // op keeps its `src`, and a million-op plan would otherwise hold a million copies).
    let paths = this.opPaths.get(path);
    if (paths === undefined) {
      paths = [];
      this.opPaths.set(path, paths);
    }
    for (let i = 0; i < ops.length && !this.isStopped; i++) {
      this.op(ctx, ops[i]!, (paths[i] ??= `${path}[${i}]`));
    }
  }

  emit(ctx: Ctx, op: PlanOp, path: string, durationNs: number, bytes: number): void {
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

  countLaunch(executedOps: number, durationNs: number, bytes: number, path: string): void {
    this.opCount++;
    this.account(executedOps, durationNs, bytes, path);
  }

  countCollectiveBytes(bytes: number, path: string): void {
    this.collectiveBytes += bytes;
    if (this.collectiveBytes > this.limits.maxTotalCollectiveBytes) {
      this.issues.add(
        path,
        `collectives and sends move more than ${this.limits.maxTotalCollectiveBytes} bytes (limit maxTotalCollectiveBytes)`,
      );
      this.isStopped = true;
    }
  }

  private account(ops: number, durationNs: number, bytes: number, path: string): void {
    this.executedOpCount += ops;
    this.declaredDurationNs += durationNs;
    this.copyBytes += bytes;
    if (this.executedOpCount > this.limits.maxOps) {
      this.issues.add(path, `the workload runs more than ${this.limits.maxOps} ops (limit maxOps)`);
      this.isStopped = true;
    } else if (this.declaredDurationNs > this.limits.maxTotalDurationNs) {
      this.issues.add(
        path,
        `declared durations add up to more than ${this.limits.maxTotalDurationNs} ns (limit maxTotalDurationNs)`,
      );
      this.isStopped = true;
    } else if (this.copyBytes > this.limits.maxTotalCopyBytes) {
      this.issues.add(
        path,
        `copies and memsets move more than ${this.limits.maxTotalCopyBytes} bytes (limit maxTotalCopyBytes)`,
      );
      this.isStopped = true;
    }
  }

  id(): number {
    return this.nextOpId++;
  }

  stream(ctx: Ctx, ref: string | undefined, path: string): number | undefined {
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

  notInGraph(ctx: Ctx, path: string, what: string): boolean {
    if (ctx.graph !== null) {
      this.issues.add(path, `${what} cannot be captured into a graph`);
      return false;
    }
    return true;
  }

  defaultStreamOnly(
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

  private op(ctx: Ctx, op: WorkloadOp, path: string): void {
    switch (op.op) {
      case 'repeat':
        return this.blocks.repeat(ctx, op, path);
      case 'range':
        return this.blocks.range(ctx, op, path);
      case 'graph':
        return this.blocks.graph(ctx, op, path);
      case 'graphLaunch':
        return this.blocks.graphLaunch(ctx, op, path);
      case 'copy':
        return this.work.copy(ctx, op, path);
      case 'kernel':
        return this.work.kernel(ctx, op, path);
      case 'memset':
        return this.work.memset(ctx, op, path);
      case 'malloc':
      case 'free':
        return this.work.memory(ctx, op, path);
      case 'eventRecord':
        return this.events.eventRecord(ctx, op, path);
      case 'streamWait':
        return this.events.streamWait(ctx, op, path);
      case 'eventSync':
        return this.events.eventSync(ctx, op, path);
      case 'streamSync':
        return this.events.streamSync(ctx, op, path);
      case 'deviceSync':
        return this.events.deviceSync(ctx, path);
      case 'hostFunc':
        return this.hostFunc(ctx, op, path);
      case 'hostWork':
        return this.hostWork(ctx, op, path);
      case 'allReduce':
      case 'reduceScatter':
      case 'allGather':
      case 'broadcast':
        return this.collectives.collective(ctx, op, path);
      case 'send':
      case 'recv':
        return this.collectives.p2p(ctx, op, path);
    }
  }

  private hostFunc(ctx: Ctx, op: Op<'hostFunc'>, path: string): void {
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
    this.emit(
      ctx,
      { kind: 'hostFunc', opId: this.id(), src: path, stream, name, durNs },
      path,
      durNs,
      0,
    );
  }

  private hostWork(ctx: Ctx, op: Op<'hostWork'>, path: string): void {
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
    this.emit(ctx, { kind: 'hostWork', opId: this.id(), src: path, name, durNs }, path, durNs, 0);
  }
}
