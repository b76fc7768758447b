import type { Ctx, ExpandBase, RecordSite, WaitSite } from './expand-types.ts';
import type { PlanEventSync, PlanStreamWait } from './plan.ts';
import type { WorkloadOp } from './schema.ts';

type Op<K extends WorkloadOp['op']> = Extract<WorkloadOp, { op: K }>;

/**
 * Expands event records, stream waits and the synchronizing calls (event, stream, device),
 * none of which a graph can capture. Notes each event's first record per thread and every
 * wait, so that waits can be bound to their recording thread once all threads are expanded
 * (cross-thread.ts).
 */
export class EventExpander {
  /** Per event id, the first record of each thread that records it, in expansion order. */
  readonly records = new Map<number, RecordSite[]>();
  readonly waits: WaitSite[] = [];

  constructor(private readonly base: ExpandBase) {}

  eventRecord(ctx: Ctx, op: Op<'eventRecord'>, path: string): void {
    const base = this.base;
    const stream = base.stream(ctx, op.stream, `${path}.stream`);
    const event = base.decl.event(op.event, ctx.scope, `${path}.event`);
    if (
      !base.notInGraph(ctx, path, 'an event record') ||
      stream === undefined ||
      event === undefined
    ) {
      return;
    }
    const opId = base.id();
    const sites = this.records.get(event) ?? [];
    if (!sites.some((s) => s.thread === ctx.thread.id)) {
      sites.push({ thread: ctx.thread.id, opId, index: ctx.out.length, path });
      this.records.set(event, sites);
    }
    base.emit(ctx, { kind: 'eventRecord', opId, src: path, stream, event }, path, 0, 0);
  }

  streamWait(ctx: Ctx, op: Op<'streamWait'>, path: string): void {
    const base = this.base;
    const stream = base.stream(ctx, op.stream, `${path}.stream`);
    const event = base.decl.event(op.event, ctx.scope, `${path}.event`);
    if (
      !base.notInGraph(ctx, path, 'a stream wait') ||
      stream === undefined ||
      event === undefined
    ) {
      return;
    }
    this.waits.push({ thread: ctx.thread.id, index: ctx.out.length, event, path });
    const wait: PlanStreamWait = {
      kind: 'streamWait',
      opId: base.id(),
      src: path,
      stream,
      event,
      afterRecord: null,
    };
    base.emit(ctx, wait, path, 0, 0);
  }

  eventSync(ctx: Ctx, op: Op<'eventSync'>, path: string): void {
    const base = this.base;
    const event = base.decl.event(op.event, ctx.scope, `${path}.event`);
    if (!base.notInGraph(ctx, path, 'cudaEventSynchronize') || event === undefined) {
      return;
    }
    this.waits.push({ thread: ctx.thread.id, index: ctx.out.length, event, path });
    const wait: PlanEventSync = {
      kind: 'eventSync',
      opId: base.id(),
      src: path,
      event,
      afterRecord: null,
    };
    base.emit(ctx, wait, path, 0, 0);
  }

  streamSync(ctx: Ctx, op: Op<'streamSync'>, path: string): void {
    const base = this.base;
    const stream = base.stream(ctx, op.stream, `${path}.stream`);
    if (!base.notInGraph(ctx, path, 'cudaStreamSynchronize') || stream === undefined) {
      return;
    }
    base.emit(ctx, { kind: 'streamSync', opId: base.id(), src: path, stream }, path, 0, 0);
  }

  deviceSync(ctx: Ctx, path: string): void {
    const base = this.base;
    if (!base.notInGraph(ctx, path, 'cudaDeviceSynchronize')) {
      return;
    }
    const device = ctx.thread.device;
    base.emit(ctx, { kind: 'deviceSync', opId: base.id(), src: path, device }, path, 0, 0);
  }
}
