import { checkCounts } from './count-check.ts';
import { Declarations, refBase } from './declarations.ts';
import { bindWaits } from './cross-thread.ts';
import type { ThreadCtx } from './expand-types.ts';
import { Expander } from './expand.ts';
import type { WorkloadIssue } from './issues.ts';
import { IssueList, jsonPath } from './issues.ts';
import type { WorkloadLimits } from './limits.ts';
import { defaultLimits } from './limits.ts';
import type { Plan } from './plan.ts';
import type { Workload, WorkloadOp } from './schema.ts';
import { workloadSchema } from './schema.ts';
import { Values } from './values.ts';

export type ValidationResult =
  | { readonly ok: true; readonly workload: Workload; readonly plan: Plan }
  | { readonly ok: false; readonly errors: readonly WorkloadIssue[] };

/**
 * Checks a spec (any JSON) and expands it into a Plan. Reports every problem found, each at
 * its JSON path; structure errors (unknown fields, wrong types) come first, since the deeper
 * checks need a well-formed spec.
 */
export function validateWorkload(
  input: unknown,
  limits: Partial<WorkloadLimits> = {},
): ValidationResult {
  const bounds: WorkloadLimits = { ...defaultLimits, ...limits };
  const tooDeep = deepestPath(input, maxJsonDepth);
  if (tooDeep !== undefined) {
    return {
      ok: false,
      errors: [{ path: tooDeep, message: `the spec nests deeper than ${maxJsonDepth} levels` }],
    };
  }
  const parsed = workloadSchema.safeParse(input);
  if (!parsed.success) {
    return { ok: false, errors: parsed.error.issues.flatMap(zodIssue) };
  }
  const workload = parsed.data;
  const issues = new IssueList();
  // Counted before anything is expanded: a small spec can multiply out to 1e18 ops.
  if (!checkCounts(workload, bounds, issues)) {
    return { ok: false, errors: issues.items };
  }
  const values = new Values(issues);
  const decl = new Declarations(issues, values, bounds, workload, opAllocatedNames(workload));
  const expander = new Expander(issues, values, bounds, decl);
  expander.collectives.declareGroups(workload);
  const threadNames = new Set<string>();
  const threads: ThreadCtx[] = [];
  workload.threads.forEach((t, i) => {
    const path = `$.threads[${i}]`;
    if (threadNames.has(t.name)) {
      issues.add(`${path}.name`, `thread "${t.name}" is declared twice`);
    }
    if (i >= bounds.maxThreads) {
      issues.add(path, `more than ${bounds.maxThreads} threads (limit maxThreads)`);
      return;
    }
    threadNames.add(t.name);
    const ctx: ThreadCtx = {
      id: i,
      name: t.name,
      device: decl.device(t.device, `${path}.device`),
      ops: [],
      graphs: new Map(),
    };
    threads.push(ctx);
    expander.expandThread(ctx, t.ops, `${path}.ops`);
  });
  if (!expander.stopped) {
    expander.collectives.checkPairs();
  }
  if (issues.count === 0) {
    bindWaits(issues, threads, decl.events, expander.events.records, expander.events.waits);
  }
  if (issues.count > 0) {
    return { ok: false, errors: issues.items };
  }
  const plan: Plan = {
    version: 1,
    name: workload.name,
    devices: decl.devices,
    buffers: decl.buffers,
    streams: decl.streams,
    events: decl.events,
    groups: expander.collectives.groups,
    graphs: expander.blocks.graphs,
    threads: threads.map((t) => ({ id: t.id, name: t.name, device: t.device, ops: t.ops })),
    opCount: expander.opCount,
    executedOpCount: expander.executedOpCount,
    declaredDurationNs: expander.declaredDurationNs,
  };
  return { ok: true, workload, plan };
}

// Far beyond any real spec (maxNesting blocks take 3 levels each), and well inside the stack.
const maxJsonDepth = 100;

/** The path of the first value nested deeper than `limit`, found without recursion. */
function deepestPath(input: unknown, limit: number): string | undefined {
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) {
      continue;
    }
    if (item.path.length >= limit) {
      return jsonPath(item.path);
    }
    const entries = Array.isArray(item.value) ? item.value.entries() : Object.entries(item.value);
    for (const [key, value] of entries) {
      if (typeof value === 'object' && value !== null) {
        stack.push({ value, path: [...item.path, key] });
      }
    }
  }
  return undefined;
}

function zodIssue(issue: {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}): WorkloadIssue[] {
  if (issue.code === 'unrecognized_keys' && issue.keys !== undefined) {
    return issue.keys.map((key) => ({
      path: jsonPath([...issue.path, key]),
      message: `unknown field "${key}"`,
    }));
  }
  return [{ path: jsonPath(issue.path), message: issue.message }];
}

/** Base names of buffers some malloc/free op allocates: those are not allocated at setup. */
function opAllocatedNames(workload: Workload): Set<string> {
  const names = new Set<string>();
  const visit = (ops: readonly WorkloadOp[]): void => {
    for (const op of ops) {
      if (op.op === 'malloc' || op.op === 'free') {
        const base = refBase(op.buffer);
        if (base !== undefined) {
          names.add(base);
        }
      } else if (op.op === 'repeat' || op.op === 'range' || op.op === 'graph') {
        visit(op.ops);
      }
    }
  };
  workload.threads.forEach((t) => visit(t.ops));
  return names;
}
