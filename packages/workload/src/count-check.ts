import type { Interval } from './interval.ts';
import { isPoint } from './interval.ts';
import type { IssueList } from './issues.ts';
import type { WorkloadLimits } from './limits.ts';
import type { CountCtx, OpTally, TallyKey } from './op-count.ts';
import { OpCounter } from './op-count.ts';
import type { Workload, WorkloadOp } from './schema.ts';

// Ops visited, at most, to make a loose bound exact by walking the iterations of loops whose
// count depends on their variable (each visit is a few hundred ns: tens of ms in all).
const enumerateVisits = 200_000;

/** A limit on one tally and how its message reads. */
interface Limit {
  readonly key: TallyKey;
  readonly max: number;
  readonly unit: string;
  readonly reads: string;
}

/**
 * Counts what the spec expands to before expanding it and reports the first limit it crosses
 * (maxOps on executed ops, twice maxOps on loop iterations, maxOps on plan ops) at the repeat
 * where the product of the counts crosses it, with that product. Returns false when it did.
 */
export function checkCounts(
  workload: Workload,
  limits: WorkloadLimits,
  issues: IssueList,
): boolean {
  const checks: readonly Limit[] = [
    {
      key: 'exec',
      max: limits.maxOps,
      unit: 'op',
      reads: `the workload runs more than ${limits.maxOps} ops (limit maxOps)`,
    },
    {
      key: 'iterations',
      max: 2 * limits.maxOps,
      unit: 'iteration',
      reads: `loops run more than ${2 * limits.maxOps} iterations (twice the limit maxOps)`,
    },
    {
      key: 'plan',
      max: limits.maxOps,
      unit: 'plan op',
      reads: `the plan holds more than ${limits.maxOps} ops (limit maxOps; a graph's nodes count once per capture)`,
    },
  ];
  const bounds = tally(new OpCounter(limits), workload);
  let over = checks.find((c) => bounds[c.key] > c.max);
  if (over !== undefined && !bounds.exact) {
    // A bound from loop variables' ranges may be loose: count those loops' iterations one by one.
    const exact = tally(new OpCounter(limits, enumerateVisits), workload);
    over = checks.find((c) => exact[c.key] > c.max);
  }
  if (over === undefined) {
    return true;
  }
  const found = locate(new Locator(limits, over), workload);
  issues.add(found.path, found.message);
  return false;
}

function tally(counter: OpCounter, workload: Workload): OpTally {
  let exec = 0;
  let plan = 0;
  let iterations = 0;
  let exact = true;
  for (const thread of workload.threads) {
    const t = counter.block(thread.ops, threadCtx());
    exec += t.exec;
    plan += t.plan;
    iterations += t.iterations;
    exact &&= t.exact;
  }
  return { exec, plan, iterations, exact };
}

function threadCtx(): CountCtx {
  return { scope: new Map(), inGraph: false, depth: 0, graphs: new Map() };
}

/** A count on the way down to where a limit is crossed: a repeat's, or a graph launch's. */
interface Factor {
  readonly count: Interval;
  readonly path: string;
  readonly launch: boolean;
  /** What one iteration (one launch) adds. */
  readonly each: number;
  /** What the ops before it add. */
  readonly before: number;
}

interface Found {
  readonly path: string;
  readonly message: string;
}

function locate(locator: Locator, workload: Workload): Found {
  let before = 0;
  for (let t = 0; t < workload.threads.length; t++) {
    const found = locator.block(workload.threads[t]!.ops, threadCtx(), `$.threads[${t}].ops`, {
      mult: 1,
      before,
      factors: [],
    });
    if (typeof found !== 'number') {
      return found;
    }
    before = found;
  }
  // Only reached if rounding hid the crossing: the totals did cross the limit.
  return { path: '$.threads', message: locator.limit.reads };
}

interface Walk {
  /** Product of the counts around the block (upper bounds). */
  readonly mult: number;
  /** What the ops before this point add, weighted the same way. */
  readonly before: number;
  readonly factors: readonly Factor[];
}

/**
 * Walks down to where the running total first crosses the limit: each block once, its ops
 * weighted by the product of the counts around them (never an iteration at a time), and reports
 * at the innermost repeat (or graph launch) there, with the product of its counts.
 */
class Locator {
  private readonly counter: OpCounter;

  constructor(
    limits: WorkloadLimits,
    readonly limit: Limit,
  ) {
    this.counter = new OpCounter(limits);
  }

  /** The place it crosses, or the running total when nothing in the block crosses. */
  block(ops: readonly WorkloadOp[], ctx: CountCtx, path: string, walk: Walk): Found | number {
    let running = walk.before;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const adds = walk.mult * this.counter.op(op, ctx)[this.limit.key];
      if (running + adds > this.limit.max) {
        return this.crossing(op, ctx, `${path}[${i}]`, { ...walk, before: running });
      }
      running += adds;
    }
    return running;
  }

  private crossing(op: WorkloadOp, ctx: CountCtx, path: string, walk: Walk): Found {
    const { key, max } = this.limit;
    let inner: Found | number | undefined;
    let factors = walk.factors;
    if (op.op === 'repeat') {
      const count = this.counter.repeatCount(op, ctx)!;
      const body = this.counter.bodyCtx(op, ctx, count);
      const each = key === 'iterations' ? 1 : this.counter.block(op.ops, body)[key];
      factors = [...factors, { count, path, launch: false, each, before: walk.before }];
      const mult = walk.mult * count.hi;
      // An iteration counts itself before its body's loops.
      const before = walk.before + (key === 'iterations' ? mult : 0);
      if (before <= max) {
        inner = this.block(op.ops, body, `${path}.ops`, { mult, before, factors });
      }
    } else if (op.op === 'graphLaunch') {
      const count = this.counter.launchCount(op, ctx)!;
      const each = this.counter.launchedNodes(op, ctx).nodes;
      factors = [...factors, { count, path, launch: true, each, before: walk.before }];
    } else if (op.op === 'range' || op.op === 'graph') {
      const inGraph = op.op === 'graph';
      // A range pushes before its body (and pops after it); a graph's capture is an op too.
      const push = key === 'iterations' ? 0 : walk.mult;
      if (!(inGraph && key === 'exec')) {
        inner = this.block(op.ops, { ...ctx, inGraph, depth: ctx.depth + 1 }, `${path}.ops`, {
          ...walk,
          before: walk.before + push,
        });
      }
    }
    if (inner !== undefined && typeof inner !== 'number') {
      return inner;
    }
    const last = factors[factors.length - 1];
    return last === undefined ? { path, message: this.limit.reads } : this.message(factors);
  }

  private message(factors: readonly Factor[]): Found {
    const last = factors[factors.length - 1]!;
    const repeats = factors.filter((f) => !f.launch);
    const shown = (f: Factor): string => (isPoint(f.count) ? '' : 'up to ') + String(f.count.hi);
    const parts: string[] = [];
    if (repeats.length > 0) {
      parts.push(`${repeats.map(shown).join(' × ')} iterations`);
    }
    if (last.launch) {
      parts.push(`${shown(last)} launches`);
    }
    const { key, unit } = this.limit;
    if (key !== 'iterations') {
      parts.push(last.launch ? plural(last.each, 'node') : plural(last.each, unit));
    }
    const exact = factors.every((f) => isPoint(f.count));
    const product = factors.reduce((p, f) => p * f.count.hi, key === 'iterations' ? 1 : last.each);
    const after = last.before > 0 ? ` after ${last.before} before it` : '';
    return {
      path: last.path,
      message:
        `${parts.join(' × ')} = ${exact ? '' : 'up to '}${product} ${unit}s${after}: ` +
        this.limit.reads,
    };
  }
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
