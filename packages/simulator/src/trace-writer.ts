import type { OpInput, Trace } from '@streamscope/trace';
import { FlowKind, OpKind, RangeKind } from '@streamscope/trace';
import type { Cmd } from './model.ts';

/** Appends ops, flows and ranges to the trace with one reused OpInput (no object per op). */
export class TraceWriter {
  private readonly op: OpInput = { startNs: 0, endNs: 0, track: 0, kind: 0, nameId: 0 };
  private readonly names = new Map<string, number>();

  constructor(readonly trace: Trace) {}

  name(text: string): number {
    let id = this.names.get(text);
    if (id === undefined) {
      id = this.trace.strings.intern(text);
      this.names.set(text, id);
    }
    return id;
  }

  /** A host API call (or host work) on a host-thread track; returns its op index. */
  host(
    track: number,
    startNs: number,
    endNs: number,
    kind: number,
    nameId: number,
    correlationId: number,
    flags: number,
  ): number {
    const op = this.op;
    op.startNs = Math.round(startNs);
    op.endNs = Math.max(op.startNs, Math.round(endNs));
    op.track = track;
    op.kind = kind;
    op.nameId = nameId;
    op.bytes = 0;
    op.memKinds = 0;
    op.correlationId = correlationId;
    op.refId = undefined;
    op.flags = flags;
    return this.trace.addOp(op);
  }

  /** The GPU op of a finished command, with its flows to what is already in the trace. */
  gpu(cmd: Cmd): void {
    const op = this.op;
    op.startNs = Math.round(cmd.startNs);
    op.endNs = Math.max(op.startNs, Math.round(cmd.endNs));
    op.track = cmd.stream.track;
    op.kind = cmd.opKind;
    op.nameId = cmd.nameId;
    op.bytes = cmd.bytes;
    op.memKinds = cmd.memKinds;
    op.correlationId = cmd.correlationId;
    op.refId = cmd.refId;
    op.flags = cmd.flags;
    cmd.gpuOp = this.trace.addOp(op);
    if (cmd.apiOp >= 0) {
      this.trace.flows.append(cmd.apiOp, cmd.gpuOp, FlowKind.ApiToGpu);
    }
    if (cmd.flowFrom !== null && cmd.flowFrom.gpuOp >= 0 && cmd.opKind === OpKind.StreamWait) {
      this.trace.flows.append(cmd.flowFrom.gpuOp, cmd.gpuOp, FlowKind.EventRecordToWait);
    }
  }

  /** Links an API call to the command it issued, once both are in the trace. */
  linkApi(apiOp: number, cmd: Cmd): void {
    cmd.apiOp = apiOp;
    if (cmd.gpuOp >= 0) {
      this.trace.flows.append(apiOp, cmd.gpuOp, FlowKind.ApiToGpu);
    }
  }

  recordToWait(record: Cmd, waitOp: number): void {
    if (record.gpuOp >= 0) {
      this.trace.flows.append(record.gpuOp, waitOp, FlowKind.EventRecordToWait);
    }
  }

  range(track: number, startNs: number, endNs: number, nameId: number, depth: number): void {
    this.trace.ranges.append({
      startNs: Math.round(startNs),
      endNs: Math.max(Math.round(startNs), Math.round(endNs)),
      track,
      nameId,
      domainId: 0,
      depth,
      kind: RangeKind.PushPop,
    });
    this.trace.version++;
  }
}
