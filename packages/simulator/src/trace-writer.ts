import type { Trace } from '@streamscope/trace';
import { FlowKind, OpKind, RangeKind, noRef } from '@streamscope/trace';
import type { FlowKind as FlowKindType } from '@streamscope/trace';
import type { Cmd } from './model.ts';

const batch = 4096;

/**
 * Appends ops, flows and ranges to the trace. Ops are gathered in typed columns and appended
 * a batch at a time (`OpTable.appendColumns`), flows after the ops they name, so a reader
 * never sees a flow to an op that is not there yet. Call `flush` before handing the trace on.
 */
export class TraceWriter {
  private readonly names = new Map<string, number>();
  private readonly cols = {
    startNs: new Float64Array(batch),
    endNs: new Float64Array(batch),
    bytes: new Float64Array(batch),
    track: new Uint16Array(batch),
    nameId: new Uint32Array(batch),
    correlationId: new Uint32Array(batch),
    refId: new Uint32Array(batch),
    kind: new Uint8Array(batch),
    memKinds: new Uint8Array(batch),
    flags: new Uint8Array(batch),
  };
  private n = 0;
  private readonly flowFrom: number[] = [];
  private readonly flowTo: number[] = [];
  private readonly flowKind: FlowKindType[] = [];

  constructor(readonly trace: Trace) {}

  name(text: string): number {
    let id = this.names.get(text);
    if (id === undefined) {
      id = this.trace.strings.intern(text);
      this.names.set(text, id);
    }
    return id;
  }

  private add(
    startNs: number,
    endNs: number,
    track: number,
    kind: number,
    nameId: number,
    bytes: number,
    memKinds: number,
    correlationId: number,
    refId: number,
    flags: number,
  ): number {
    if (this.n === batch) {
      this.flush();
    }
    const i = this.n++;
    const c = this.cols;
    const start = Math.round(startNs);
    c.startNs[i] = start;
    c.endNs[i] = Math.max(start, Math.round(endNs));
    c.track[i] = track;
    c.kind[i] = kind;
    c.nameId[i] = nameId;
    c.bytes[i] = bytes;
    c.memKinds[i] = memKinds;
    c.correlationId[i] = correlationId;
    c.refId[i] = refId;
    c.flags[i] = flags;
    return this.trace.ops.count + i;
  }

  private flow(from: number, to: number, kind: FlowKindType): void {
    this.flowFrom.push(from);
    this.flowTo.push(to);
    this.flowKind.push(kind);
  }

  /** Moves gathered ops, then flows, into the trace. */
  flush(): void {
    if (this.n > 0) {
      this.trace.ops.appendColumns(this.cols, this.n);
      this.n = 0;
      this.trace.version++;
    }
    const flows = this.trace.flows;
    for (let i = 0; i < this.flowFrom.length; i++) {
      flows.append(this.flowFrom[i]!, this.flowTo[i]!, this.flowKind[i]!);
    }
    if (this.flowFrom.length > 0) {
      this.flowFrom.length = 0;
      this.flowTo.length = 0;
      this.flowKind.length = 0;
      this.trace.version++;
    }
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
    return this.add(startNs, endNs, track, kind, nameId, 0, 0, correlationId, noRef, flags);
  }

  /** The GPU op of a finished command, with its flows to what is already written. */
  gpu(cmd: Cmd): void {
    // A record takes no GPU time: it happens when the stream reaches it. Time spent before that
    // (behind the legacy stream's barrier, say) is a gap on the stream, not part of the record.
    const startNs = cmd.opKind === OpKind.EventRecord ? cmd.endNs : cmd.startNs;
    cmd.gpuOp = this.add(
      startNs,
      cmd.endNs,
      cmd.stream.track,
      cmd.opKind,
      cmd.nameId,
      cmd.bytes,
      cmd.memKinds,
      cmd.correlationId,
      cmd.refId,
      cmd.flags,
    );
    if (cmd.apiOp >= 0) {
      this.flow(cmd.apiOp, cmd.gpuOp, FlowKind.ApiToGpu);
    }
    if (cmd.flowFrom !== null && cmd.flowFrom.gpuOp >= 0 && cmd.opKind === OpKind.StreamWait) {
      this.flow(cmd.flowFrom.gpuOp, cmd.gpuOp, FlowKind.EventRecordToWait);
    }
  }

  /** Links an API call to the command it issued, once both are written. */
  linkApi(apiOp: number, cmd: Cmd): void {
    cmd.apiOp = apiOp;
    if (cmd.gpuOp >= 0) {
      this.flow(apiOp, cmd.gpuOp, FlowKind.ApiToGpu);
    }
  }

  recordToWait(record: Cmd, waitOp: number): void {
    if (record.gpuOp >= 0) {
      this.flow(record.gpuOp, waitOp, FlowKind.EventRecordToWait);
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
