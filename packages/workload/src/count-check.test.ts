import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Expander } from './expand.ts';
import { defaultLimits } from './limits.ts';
import type { OpTally } from './op-count.ts';
import { OpCounter } from './op-count.ts';
import type { Workload, WorkloadOp } from './schema.ts';
import { workloadSchema } from './schema.ts';
import type { ValidationResult } from './validate.ts';
import { validateWorkload } from './validate.ts';

type Spec = Record<string, unknown>;

function spec(ops: unknown[], more: Record<string, unknown> = {}): Spec {
  return { name: 'hostile', threads: [{ name: 'main', ops }], ...more };
}

/** `repeat c0 { repeat c1 { … leaf } }`, the loop variables v0, v1, … */
function nest(counts: readonly (number | string)[], leaf: readonly unknown[]): unknown[] {
  return counts.reduceRight<unknown[]>(
    (ops, count, depth) => [{ op: 'repeat', count, var: `v${depth}`, ops }],
    [...leaf],
  );
}

const sync = { op: 'deviceSync' };
const kernel = { op: 'kernel', duration: '1ns' };

/** Makes the expander throw at its first op, until vi.restoreAllMocks(). */
function forbidExpanding(): void {
  const expanded = (): never => {
    throw new Error('the spec was expanded');
  };
  vi.spyOn(Expander.prototype, 'emit').mockImplementation(expanded);
  vi.spyOn(Expander.prototype, 'countLaunch').mockImplementation(expanded);
}

function onlyError(result: ValidationResult): { path: string; message: string } {
  if (result.ok) {
    throw new Error('expected the spec to be refused');
  }
  expect(result.errors).toHaveLength(1);
  return result.errors[0]!;
}

describe('counting a spec before expanding it', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Validates; the expander emitting a single op fails the test. */
  function refusedUnexpanded(input: Spec): { path: string; message: string } {
    forbidExpanding();
    return onlyError(validateWorkload(input));
  }

  it('refuses 1000 × 1000 × 1000 ops from the product of the counts, at the innermost repeat', () => {
    const input = spec(nest([1000, 1000, 1000], [sync]));
    // The spec is about 220 bytes of JSON and asks for 1e9 ops.
    expect(JSON.stringify(input).length).toBeLessThan(250);
    expect(refusedUnexpanded(input)).toEqual({
      path: '$.threads[0].ops[0].ops[0].ops[0]',
      message:
        '1000 × 1000 × 1000 iterations × 1 op = 1000000000 ops: the workload runs more than 2000000 ops (limit maxOps)',
    });
  });

  it('multiplies past what a float counts exactly without walking anything (1e6^6 = 1e36 ops)', () => {
    const error = refusedUnexpanded(spec(nest(Array<number>(6).fill(1e6), [kernel])));
    expect(error.path).toBe(`$.threads[0]${'.ops[0]'.repeat(6)}`);
    expect(error.message).toBe(
      `${Array<string>(6).fill('1000000').join(' × ')} iterations × 1 op = 1e+36 ops: the workload runs more than 2000000 ops (limit maxOps)`,
    );
  });

  it('counts a wide body once per iteration: 40 ops × 60000 crosses at that repeat', () => {
    const error = refusedUnexpanded(spec(nest([60_000], Array<unknown>(40).fill(sync))));
    expect(error).toEqual({
      path: '$.threads[0].ops[0]',
      message:
        '60000 iterations × 40 ops = 2400000 ops: the workload runs more than 2000000 ops (limit maxOps)',
    });
  });

  it('adds what comes before: a loop that fits alone crosses after its siblings', () => {
    const ops = [...nest([1000, 1000], [sync]), ...nest([1000, 1001], [sync])];
    ops[1] = { ...(ops[1] as object), var: 'w' };
    const error = refusedUnexpanded(spec(ops));
    expect(error.path).toBe('$.threads[0].ops[1].ops[0]');
    expect(error.message).toBe(
      '1000 × 1001 iterations × 1 op = 1001000 ops after 1000000 before it: the workload runs more than 2000000 ops (limit maxOps)',
    );
  });

  it('adds the threads together', () => {
    const threads = [0, 1, 2].map((t) => ({ name: `t${t}`, ops: nest([800, 1000], [sync]) }));
    const error = refusedUnexpanded({ name: 'threads', threads });
    expect(error.path).toBe('$.threads[2].ops[0].ops[0]');
    expect(error.message).toMatch(/= 800000 ops after 1600000 before it: the workload runs more/);
  });

  it('multiplies through NVTX ranges, counting their push and pop', () => {
    const inner = {
      op: 'repeat',
      count: 999_999,
      var: 'j',
      ops: [{ op: 'hostWork', duration: 0 }],
    };
    // 2 + 999999 = 1000001 ops per iteration of the outer repeat: twice is 2000002.
    const error = refusedUnexpanded(spec(nest([2], [{ op: 'range', name: 'r', ops: [inner] }])));
    // The last pop crosses: the outer repeat is the innermost one around it.
    expect(error).toEqual({
      path: '$.threads[0].ops[0]',
      message:
        '2 iterations × 1000001 ops = 2000002 ops: the workload runs more than 2000000 ops (limit maxOps)',
    });
  });

  it('bounds counts that depend on loop variables over their ranges', () => {
    const error = refusedUnexpanded(spec(nest([1000, '1000 + v0 % 2', 1000], [sync])));
    expect(error.path).toBe('$.threads[0].ops[0].ops[0].ops[0]');
    expect(error.message).toBe(
      '1000 × up to 1002 × 1000 iterations × 1 op = up to 1002000000 ops: the workload runs more than 2000000 ops (limit maxOps)',
    );
    for (const count of ['v0 * 1000', 'max(v0, 1e6)', 'floor(v0 / 2) * 3000', '-v0 + 3000']) {
      expect(refusedUnexpanded(spec(nest([1000, count], [sync]))).path).toBe(
        '$.threads[0].ops[0].ops[0]',
      );
    }
  });

  it('walks a triangular loop whose bound is loose but whose ops fit (200 × i < 200 × 199)', () => {
    // Bounded by 200 × 199 = 39800 ops, over the limit; it runs 0 + 1 + … + 199 = 19900.
    const result = validateWorkload(spec(nest([200, 'v0'], [sync])), { maxOps: 20_000 });
    expect(result.ok && result.plan.executedOpCount).toBe(19_900);
    const over = onlyError(validateWorkload(spec(nest([201, 'v0'], [sync])), { maxOps: 20_000 }));
    expect(over.message).toMatch(/^201 × up to 200 iterations × 1 op = up to 40200 ops/);
  });

  it('multiplies a graph launch by the nodes it captured and the loops around it', () => {
    const graph = {
      op: 'graph',
      name: 'g',
      stream: 'per-thread',
      ops: nest([1000], [kernel]),
    };
    const launches = nest([100], [{ op: 'graphLaunch', graph: 'g', count: 100 }]);
    const error = refusedUnexpanded(spec([graph, ...launches]));
    expect(error).toEqual({
      path: '$.threads[0].ops[1].ops[0]',
      message:
        '100 iterations × 100 launches × 1000 nodes = 10000000 ops after 1 before it: the workload runs more than 2000000 ops (limit maxOps)',
    });
  });

  it('refuses a graph that captures more nodes than maxOps even if it is never launched', () => {
    const graph = {
      op: 'graph',
      name: 'g',
      stream: 'per-thread',
      ops: nest([1000, 2001], [kernel]),
    };
    const error = refusedUnexpanded(spec([graph]));
    expect(error.path).toBe('$.threads[0].ops[0].ops[0].ops[0]');
    expect(error.message).toBe(
      "1000 × 2001 iterations × 1 plan op = 2001000 plan ops after 1 before it: the plan holds more than 2000000 ops (limit maxOps; a graph's nodes count once per capture)",
    );
  });

  it('counts loop iterations that emit nothing', () => {
    const error = refusedUnexpanded(spec(nest([2_000_000, 2_000_000, 2_000_000], [])));
    expect(error.path).toBe('$.threads[0].ops[0].ops[0]');
    expect(error.message).toMatch(
      /^2000000 × 2000000 iterations = 4000000000000 iterations after 2000000 before it: loops run more than 4000000 iterations/,
    );
  });

  it('leaves to the expander what it refuses without expanding (a bad count, nesting too deep)', () => {
    const bad = onlyError(validateWorkload(spec(nest([1e9, 1000], [sync]))));
    expect(bad.path).toBe('$.threads[0].ops[0].count');
    expect(bad.message).toMatch(/above the limit 2000000/);
    const deep = validateWorkload(spec(nest(Array<number>(20).fill(2), [sync])));
    expect(deep.ok ? [] : deep.errors.map((e) => e.message)).toEqual([
      'blocks nest deeper than 16 (limit maxNesting)',
    ]);
  });
});

// Random nestings of loops (constant counts and counts over the enclosing loop variables),
// ranges, graph captures and launches: the count agrees with what the expander builds.
const countExpr = (depth: number): fc.Arbitrary<number | string> => {
  const constant = fc.integer({ min: 0, max: 4 });
  if (depth === 0) {
    return constant;
  }
  const v = fc.integer({ min: 0, max: depth - 1 }).map((d) => `v${d}`);
  return fc.oneof(
    constant,
    v,
    v.map((x) => `${x} % 3`),
    v.map((x) => `max(0, 3 - ${x})`),
    v.map((x) => `floor(${x} / 2) + 1`),
  );
};

function block(depth: number, inGraph: boolean): fc.Arbitrary<unknown[]> {
  const leaves: fc.Arbitrary<unknown>[] = [fc.constant(kernel)];
  if (!inGraph) {
    leaves.push(fc.constant(sync), fc.constant({ op: 'graphLaunch', graph: 'g', count: 2 }));
  }
  const items: fc.Arbitrary<unknown>[] = [...leaves];
  if (depth < 3) {
    items.push(
      fc.record({
        op: fc.constant('repeat'),
        count: countExpr(depth),
        var: fc.constant(`v${depth}`),
        ops: fc.constant(null).chain(() => block(depth + 1, inGraph)),
      }),
    );
    if (!inGraph) {
      items.push(
        fc.record({
          op: fc.constant('range'),
          name: fc.constant('r'),
          ops: fc.constant(null).chain(() => block(depth, inGraph)),
        }),
      );
    }
  }
  return fc.array(fc.oneof(...items), { minLength: 0, maxLength: 3 });
}

const randomSpec = fc
  .tuple(block(0, true), block(0, false))
  .map(([graphBody, ops]) =>
    spec([{ op: 'graph', name: 'g', stream: 'per-thread', ops: [kernel, ...graphBody] }, ...ops]),
  );

function tallyOf(input: Spec, enumerateVisits: number): OpTally {
  const workload: Workload = workloadSchema.parse(input);
  const counter = new OpCounter({ ...defaultLimits, maxOps: 1e9 }, enumerateVisits);
  const ops = workload.threads[0]!.ops as readonly WorkloadOp[];
  return counter.block(ops, { scope: new Map(), inGraph: false, depth: 0, graphs: new Map() });
}

describe('the count, on random nestings', () => {
  it('bounds what the expander builds, and equals it once loops over variables are walked', () => {
    fc.assert(
      fc.property(randomSpec, (input) => {
        const built = validateWorkload(input, { maxOps: 1e9 });
        if (!built.ok) {
          throw new Error(JSON.stringify(built.errors));
        }
        const bound = tallyOf(input, 0);
        expect(bound.exec).toBeGreaterThanOrEqual(built.plan.executedOpCount);
        expect(bound.plan).toBeGreaterThanOrEqual(built.plan.opCount);
        const walked = tallyOf(input, 1e6);
        expect(walked.exact).toBe(true);
        expect([walked.exec, walked.plan]).toEqual([
          built.plan.executedOpCount,
          built.plan.opCount,
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses exactly the specs whose count crosses maxOps, before expanding them', () => {
    fc.assert(
      fc.property(randomSpec, (input) => {
        const maxOps = 40;
        const walked = tallyOf(input, 1e6);
        const over = walked.exec > maxOps || walked.plan > maxOps || walked.iterations > 2 * maxOps;
        if (over) {
          forbidExpanding();
        }
        const result = validateWorkload(input, { maxOps });
        vi.restoreAllMocks();
        expect(result.ok).toBe(!over);
      }),
      { numRuns: 300 },
    );
  });
});
