import type { Ctx, ExpandBase, GraphCtx } from './expand-types.ts';
import type { PlanGraph } from './plan.ts';
import type { WorkloadOp } from './schema.ts';

type Op<K extends WorkloadOp['op']> = Extract<WorkloadOp, { op: K }>;

/**
 * Expands the ops that hold other ops: `repeat` loops (unrolled, with their loop variable in
 * scope), NVTX `range`s (a push and a pop around their body) and `graph` captures, and the
 * launches of captured graphs. Bounds nesting and loop iterations.
 */
export class BlockExpander {
  readonly graphs: PlanGraph[] = [];
  /** Per graph id, what one launch of it declares and copies. */
  private readonly graphTotals = new Map<number, { durationNs: number; copyBytes: number }>();
  private iterations = 0;

  constructor(private readonly base: ExpandBase) {}

  repeat(ctx: Ctx, op: Op<'repeat'>, path: string): void {
    const base = this.base;
    const count = base.values.count(op.count, ctx.scope, `${path}.count`, 0, base.limits.maxOps);
    if (count === undefined || !this.nest(ctx, path)) {
      return;
    }
    if (ctx.scope.has(op.var)) {
      base.issues.add(
        `${path}.var`,
        `loop variable "${op.var}" is already used by an enclosing repeat`,
      );
      return;
    }
    const scope = new Map(ctx.scope);
    const inner: Ctx = { ...ctx, scope, depth: ctx.depth + 1 };
    const bodyPath = `${path}.ops`;
    for (let k = 0; k < count && !base.stopped; k++) {
      // Empty or op-less loop bodies cost time too: bound the iterations, not only the ops.
      if (++this.iterations > 2 * base.limits.maxOps) {
        base.issues.add(
          path,
          `loops run more than ${2 * base.limits.maxOps} iterations (twice the limit maxOps)`,
        );
        base.stop();
        return;
      }
      scope.set(op.var, k);
      base.block(inner, op.ops, bodyPath);
    }
  }

  private nest(ctx: Ctx, path: string): boolean {
    if (ctx.depth >= this.base.limits.maxNesting) {
      this.base.issues.add(
        path,
        `blocks nest deeper than ${this.base.limits.maxNesting} (limit maxNesting)`,
      );
      return false;
    }
    return true;
  }

  range(ctx: Ctx, op: Op<'range'>, path: string): void {
    const base = this.base;
    if (!base.notInGraph(ctx, path, 'an NVTX range') || !this.nest(ctx, path)) {
      return;
    }
    const name = base.values.interpolate(op.name, ctx.scope, `${path}.name`);
    base.emit(ctx, { kind: 'rangePush', opId: base.id(), src: path, name }, path, 0, 0);
    base.block({ ...ctx, depth: ctx.depth + 1 }, op.ops, `${path}.ops`);
    base.emit(ctx, { kind: 'rangePop', opId: base.id(), src: path }, path, 0, 0);
  }

  graph(ctx: Ctx, op: Op<'graph'>, path: string): void {
    const base = this.base;
    if (!base.notInGraph(ctx, path, 'a graph') || !this.nest(ctx, path)) {
      return;
    }
    const stream = base.decl.stream(
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
    if (base.decl.streams[stream]?.type === 'legacy-default') {
      base.issues.add(
        `${path}.stream`,
        'the legacy default stream cannot be captured into a graph',
      );
      return;
    }
    const id = this.graphs.length;
    const g: GraphCtx = { id, stream, nodes: [], durationNs: 0, copyBytes: 0 };
    const name = base.values.interpolate(op.name, ctx.scope, `${path}.name`);
    base.block({ ...ctx, graph: g, out: g.nodes, depth: ctx.depth + 1 }, op.ops, `${path}.ops`);
    if (g.nodes.length === 0) {
      base.issues.add(`${path}.ops`, 'a graph needs at least one node');
      return;
    }
    this.graphs.push({ id, name, stream, ops: g.nodes });
    this.graphTotals.set(id, { durationNs: g.durationNs, copyBytes: g.copyBytes });
    ctx.thread.graphs.set(name, id);
    base.emit(ctx, { kind: 'graphCapture', opId: base.id(), src: path, graph: id }, path, 0, 0);
  }

  graphLaunch(ctx: Ctx, op: Op<'graphLaunch'>, path: string): void {
    const base = this.base;
    const stream = base.stream(ctx, op.stream, `${path}.stream`);
    const count = base.values.count(
      op.count,
      ctx.scope,
      `${path}.count`,
      1,
      base.limits.maxGraphLaunchCount,
    );
    if (
      !base.notInGraph(ctx, path, 'a graph launch') ||
      stream === undefined ||
      count === undefined
    ) {
      return;
    }
    const graphId = ctx.thread.graphs.get(
      base.values.interpolate(op.graph, ctx.scope, `${path}.graph`),
    );
    if (graphId === undefined) {
      base.issues.add(
        `${path}.graph`,
        `graph "${op.graph}" is launched before this thread captures it`,
      );
      return;
    }
    const nodes = this.graphs[graphId]!.ops.length;
    ctx.out.push({
      kind: 'graphLaunch',
      opId: base.id(),
      src: path,
      graph: graphId,
      stream,
      count,
    });
    const totals = this.graphTotals.get(graphId) ?? { durationNs: 0, copyBytes: 0 };
    base.countLaunch(1 + nodes * count, totals.durationNs * count, totals.copyBytes * count, path);
  }
}
