import type { Declarations } from './declarations.ts';
import type { IssueList } from './issues.ts';
import type { WorkloadLimits } from './limits.ts';
import type { PlanOp } from './plan.ts';
import type { WorkloadOp } from './schema.ts';
import type { Values } from './values.ts';

// What the expander carries while it walks a thread's ops.

export interface ThreadCtx {
  readonly id: number;
  readonly name: string;
  readonly device: number;
  readonly ops: PlanOp[];
  readonly graphs: Map<string, number>;
}

export interface GraphCtx {
  readonly id: number;
  readonly stream: number;
  readonly nodes: PlanOp[];
  durationNs: number;
  copyBytes: number;
}

export interface Ctx {
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

/** What the expanders of each op family use of the Expander around them. */
export interface ExpandBase {
  readonly issues: IssueList;
  readonly values: Values;
  readonly limits: WorkloadLimits;
  readonly decl: Declarations;
  /** True once a limit was hit: expansion stops. */
  readonly stopped: boolean;
  stop(): void;
  /** Expands a block of spec ops (a thread, loop, range or graph body) into `ctx.out`. */
  block(ctx: Ctx, ops: readonly WorkloadOp[], path: string): void;
  emit(ctx: Ctx, op: PlanOp, path: string, durationNs: number, bytes: number): void;
  /** Counts one plan op that runs `executedOps` ops (a graph launch), checking the limits. */
  countLaunch(executedOps: number, durationNs: number, bytes: number, path: string): void;
  /** Counts bytes moved by a collective or send/recv against maxTotalCollectiveBytes. */
  countCollectiveBytes(bytes: number, path: string): void;
  id(): number;
  stream(ctx: Ctx, ref: string | undefined, path: string): number | undefined;
  notInGraph(ctx: Ctx, path: string, what: string): boolean;
  defaultStreamOnly(
    ctx: Ctx,
    ref: string | undefined,
    path: string,
    what: string,
  ): number | undefined;
}
