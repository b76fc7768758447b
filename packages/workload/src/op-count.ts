import { ExprError, compiledExpression } from './expr.ts';
import type { BoundsScope, Interval } from './interval.ts';
import { isPoint, point } from './interval.ts';
import type { WorkloadLimits } from './limits.ts';
import type { WorkloadOp } from './schema.ts';

// Counting a spec before expanding it: a block's ops are the product of the counts around them,
// so a 1 kB spec can ask for 1e18 ops. Each block is visited once; a count that depends on a loop
// variable is bounded over the variable's range (interval arithmetic). What the expander would
// refuse without expanding (a bad count, nesting too deep, a block inside a graph) counts 0, so
// for a spec the expander accepts the count is exact wherever the counts are.

/** What a block expands to. Upper bounds where a count depends on a loop variable. */
export interface OpTally {
  /** Ops a full run executes (graph nodes once per launch): the expander's executedOpCount. */
  readonly exec: number;
  /** Plan ops (graph nodes once per capture): the expander's opCount. */
  readonly plan: number;
  /** Loop iterations, counted as the expander bounds them. */
  readonly iterations: number;
  /** False when some count depended on a loop variable and only its bound was used. */
  readonly exact: boolean;
}

export type TallyKey = 'exec' | 'plan' | 'iterations';

export interface CountCtx {
  readonly scope: BoundsScope;
  readonly inGraph: boolean;
  readonly depth: number;
  /** Per thread: the most nodes a graph of each name captures (names with `{}` under ''). */
  readonly graphs: Map<string, { nodes: number; exact: boolean }>;
}

type Op<K extends WorkloadOp['op']> = Extract<WorkloadOp, { op: K }>;

const zero: OpTally = { exec: 0, plan: 0, iterations: 0, exact: true };
// Ops a graph may capture; the rest are refused inside a graph and expand to nothing there.
const graphNodeOps = new Set<WorkloadOp['op']>(['copy', 'kernel', 'memset', 'hostFunc']);

/**
 * Counts blocks of spec ops without expanding them. With `enumerateVisits` > 0 it may instead
 * walk the iterations of a loop whose body's count depends on the loop variable, visiting at
 * most that many ops in all, to make a bound exact (a triangular nest such as
 * `repeat 2000 { repeat "i" }` is bounded by 2000 × 1999 but runs 1999000).
 */
export class OpCounter {
  private visits = 0;
  private readonly sizes = new WeakMap<readonly WorkloadOp[], number>();

  constructor(
    private readonly limits: WorkloadLimits,
    private readonly enumerateVisits = 0,
  ) {}

  block(ops: readonly WorkloadOp[], ctx: CountCtx): OpTally {
    let exec = 0;
    let plan = 0;
    let iterations = 0;
    let exact = true;
    for (const op of ops) {
      const t = this.op(op, ctx);
      exec += t.exec;
      plan += t.plan;
      iterations += t.iterations;
      exact &&= t.exact;
    }
    return { exec, plan, iterations, exact };
  }

  op(op: WorkloadOp, ctx: CountCtx): OpTally {
    this.visits++;
    switch (op.op) {
      case 'repeat':
        return this.repeat(op, ctx);
      case 'range':
        return this.range(op, ctx);
      case 'graph':
        return this.graph(op, ctx);
      case 'graphLaunch':
        return this.graphLaunch(op, ctx);
      default:
        if (ctx.inGraph) {
          return graphNodeOps.has(op.op) ? { exec: 0, plan: 1, iterations: 0, exact: true } : zero;
        }
        return { exec: 1, plan: 1, iterations: 0, exact: true };
    }
  }

  /** The loop's count, the range of its variable, or undefined when the expander refuses it. */
  repeatCount(op: Op<'repeat'>, ctx: CountCtx): Interval | undefined {
    if (ctx.depth >= this.limits.maxNesting || ctx.scope.has(op.var)) {
      return undefined;
    }
    return countBounds(op.count, ctx.scope, 0, this.limits.maxOps);
  }

  /** The scope inside a loop whose count lies in `count`. */
  bodyCtx(op: Op<'repeat'>, ctx: CountCtx, count: Interval): CountCtx {
    const scope = new Map(ctx.scope);
    scope.set(op.var, { lo: 0, hi: Math.max(0, count.hi - 1) });
    return { ...ctx, scope, depth: ctx.depth + 1 };
  }

  /** Nodes of the graph a launch names, and whether that number is exact. */
  launchedNodes(op: Op<'graphLaunch'>, ctx: CountCtx): { nodes: number; exact: boolean } {
    const named = op.graph.includes('{') ? undefined : ctx.graphs.get(op.graph);
    const anyName = [...ctx.graphs.values()].reduce((most, g) => Math.max(most, g.nodes), 0);
    return named !== undefined && !ctx.graphs.has('')
      ? named
      : { nodes: Math.max(named?.nodes ?? 0, anyName), exact: false };
  }

  private repeat(op: Op<'repeat'>, ctx: CountCtx): OpTally {
    const count = this.repeatCount(op, ctx);
    if (count === undefined || count.hi === 0) {
      return zero;
    }
    const body = this.block(op.ops, this.bodyCtx(op, ctx, count));
    if (!body.exact && isPoint(count) && this.canEnumerate(count.lo, op.ops)) {
      let exec = 0;
      let plan = 0;
      let iterations = count.lo;
      let exact = true;
      const scope = new Map(ctx.scope);
      const inner: CountCtx = { ...ctx, scope, depth: ctx.depth + 1 };
      for (let k = 0; k < count.lo; k++) {
        scope.set(op.var, point(k));
        const t = this.block(op.ops, inner);
        exec += t.exec;
        plan += t.plan;
        iterations += t.iterations;
        exact &&= t.exact;
      }
      return { exec, plan, iterations, exact };
    }
    return {
      exec: count.hi * body.exec,
      plan: count.hi * body.plan,
      iterations: count.hi + count.hi * body.iterations,
      exact: isPoint(count) && body.exact,
    };
  }

  private range(op: Op<'range'>, ctx: CountCtx): OpTally {
    if (ctx.inGraph || ctx.depth >= this.limits.maxNesting) {
      return zero;
    }
    const body = this.block(op.ops, { ...ctx, depth: ctx.depth + 1 });
    return { ...body, exec: 2 + body.exec, plan: 2 + body.plan };
  }

  private graph(op: Op<'graph'>, ctx: CountCtx): OpTally {
    if (ctx.inGraph || ctx.depth >= this.limits.maxNesting) {
      return zero;
    }
    const body = this.graphBody(op, ctx);
    if (body.plan === 0) {
      return zero; // refused: a graph needs a node
    }
    const key = op.name.includes('{') ? '' : op.name;
    const seen = ctx.graphs.get(key);
    ctx.graphs.set(key, {
      nodes: Math.max(seen?.nodes ?? 0, body.plan),
      exact: body.exact && (seen === undefined || seen.nodes === body.plan),
    });
    return { exec: 1, plan: 1 + body.plan, iterations: body.iterations, exact: body.exact };
  }

  graphBody(op: Op<'graph'>, ctx: CountCtx): OpTally {
    return this.block(op.ops, { ...ctx, inGraph: true, depth: ctx.depth + 1 });
  }

  private graphLaunch(op: Op<'graphLaunch'>, ctx: CountCtx): OpTally {
    const count = this.launchCount(op, ctx);
    if (count === undefined) {
      return zero;
    }
    const { nodes, exact } = this.launchedNodes(op, ctx);
    return { exec: 1 + nodes * count.hi, plan: 1, iterations: 0, exact: exact && isPoint(count) };
  }

  launchCount(op: Op<'graphLaunch'>, ctx: CountCtx): Interval | undefined {
    if (ctx.inGraph) {
      return undefined;
    }
    return countBounds(op.count, ctx.scope, 1, this.limits.maxGraphLaunchCount);
  }

  /** Whether walking `count` iterations of `ops` stays within the visits allowed. */
  private canEnumerate(count: number, ops: readonly WorkloadOp[]): boolean {
    const planned = this.visits + count * this.size(ops);
    return planned <= this.enumerateVisits;
  }

  /** Spec ops in a block, nested ones included. */
  private size(ops: readonly WorkloadOp[]): number {
    let n = this.sizes.get(ops);
    if (n === undefined) {
      n = 0;
      for (const op of ops) {
        n += 1 + ('ops' in op ? this.size(op.ops) : 0);
      }
      this.sizes.set(ops, n);
    }
    return n;
  }
}

/**
 * The range of a count (a whole number in [min, max]) over the loop variables' ranges, or
 * undefined where the expander refuses it without expanding anything (not a number, a
 * dimension, out of range).
 */
export function countBounds(
  value: number | string,
  scope: BoundsScope,
  min: number,
  max: number,
): Interval | undefined {
  let range: Interval;
  if (typeof value === 'number') {
    range = point(value);
  } else {
    try {
      const compiled = compiledExpression(value);
      if (compiled.dim !== 'none') {
        return undefined;
      }
      range = compiled.bounds(scope);
    } catch (error) {
      if (error instanceof ExprError) {
        return undefined;
      }
      throw error;
    }
  }
  if (isPoint(range)) {
    const v = range.lo;
    return Number.isInteger(v) && v >= min && v <= max ? range : undefined;
  }
  const lo = Math.max(min, Math.ceil(range.lo));
  const hi = Math.min(max, Math.floor(range.hi));
  return lo > hi ? undefined : { lo, hi };
}
