import type { PlanOp } from './plan.ts';

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
