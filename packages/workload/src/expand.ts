import type { Declarations } from './declarations.ts';
import type { IssueList } from './issues.ts';
import type { WorkloadLimits } from './limits.ts';
import { WorkExpander } from './expand-work.ts';
import type { Ctx, GraphCtx, RecordSite, ThreadCtx, WaitSite } from './expand-types.ts';
import type { PlanGraph, PlanOp, PlanStreamWait, PlanEventSync } from './plan.ts';
import type { WorkloadOp } from './schema.ts';
import type { Values } from './values.ts';

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
  private readonly work = new WorkExpander(this);
  /** Per block path, the paths of its ops. */
  private readonly opPaths = new Map<string, string[]>();

  constructor(
    readonly issues: IssueList,
    readonly values: Values,
    readonly limits: WorkloadLimits,
    readonly decl: Declarations,
  ) {}

  expandThread(thread: ThreadCtx, ops: readonly WorkloadOp[], path: string): void {
    this.block({ thread, scope: new Map(), graph: null, out: thread.ops, depth: 0 }, ops, path);
  }

  private block(ctx: Ctx, ops: readonly WorkloadOp[], path: string): void {
    // Every iteration of a loop names its ops by the same paths: share the strings (each plan
    // op keeps its `src`, and a million-op plan would otherwise hold a million copies).
    let paths = this.opPaths.get(path);
    if (paths === undefined) {
      paths = [];
      this.opPaths.set(path, paths);
    }
    for (let i = 0; i < ops.length && !this.stopped; i++) {
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
        return this.repeat(ctx, op, path);
      case 'range':
        return this.rangeBlock(ctx, op, path);
      case 'graph':
        return this.graph(ctx, op, path);
      case 'copy':
        return this.work.copy(ctx, op, path);
      case 'kernel':
        return this.work.kernel(ctx, op, path);
      case 'memset':
        return this.work.memset(ctx, op, path);
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
        return this.work.memory(ctx, op, path);
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
    const bodyPath = `${path}.ops`;
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
      this.block(inner, op.ops, bodyPath);
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
}
