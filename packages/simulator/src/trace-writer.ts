import type { Trace } from '@streamscope/trace';
import { FlowKind, OpKind, RangeKind, noRef } from '@streamscope/trace';
import type { FlowKind as FlowKindType } from '@streamscope/trace';
import type { CmdSlot, CommandStore } from './command-store.ts';
import type { FixedName } from './fixed-names.ts';
import { fixedNameTexts } from './fixed-names.ts';
import type { SimStream } from './model.ts';

const batch = 4096;
// Each op brings at most two flows; a full flow batch flushes early all the same.
const flowBatch = 2 * batch;

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
  private readonly flowCols = {
    fromOp: new Uint32Array(flowBatch),
    toOp: new Uint32Array(flowBatch),
    kind: new Uint8Array(flowBatch),
  };
  private flowN = 0;
  private readonly fixedIds = new Int32Array(fixedNameTexts.length).fill(-1);

  constructor(
    readonly trace: Trace,
    private readonly cmds: CommandStore,
    private readonly streams: readonly (SimStream | undefined)[],
  ) {}

  /** The string id of a FixedName (interned on first use). */
  fixed(name: FixedName): number {
    const id = this.fixedIds[name]!;
    return id >= 0 ? id : (this.fixedIds[name] = this.name(fixedNameTexts[name]!));
  }

  /** The string id of `text`. */
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
    if (this.flowN === flowBatch) {
      this.flush();
    }
    const i = this.flowN++;
    this.flowCols.fromOp[i] = from;
    this.flowCols.toOp[i] = to;
    this.flowCols.kind[i] = kind;
  }

  /** Moves gathered ops, then flows, into the trace. */
  flush(): void {
    if (this.n > 0) {
      this.trace.ops.appendColumns(this.cols, this.n);
      this.n = 0;
      this.trace.version++;
    }
    if (this.flowN > 0) {
      this.trace.flows.appendColumns(this.flowCols, this.flowN);
      this.flowN = 0;
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
  gpu(cmd: CmdSlot): void {
    const c = this.cmds;
    const opKind = c.opKind[cmd]!;
    // A record takes no GPU time: it happens when the stream reaches it. Time spent before that
    // (behind the legacy stream's barrier, say) is a gap on the stream, not part of the record.
    const endNs = c.endNs[cmd]!;
    const gpuOp = this.add(
      opKind === OpKind.EventRecord ? endNs : c.startNs[cmd]!,
      endNs,
      this.streams[c.stream[cmd]!]!.track,
      opKind,
      c.nameId[cmd]!,
      c.bytes[cmd]!,
      c.memKinds[cmd]!,
      c.correlationId[cmd]!,
      c.refId[cmd]!,
      c.flags[cmd]!,
    );
    c.gpuOp[cmd] = gpuOp;
    const apiOp = c.apiOp[cmd]!;
    if (apiOp >= 0) {
      this.flow(apiOp, gpuOp, FlowKind.ApiToGpu);
    }
    const from = c.flowFrom[cmd]!;
    if (from >= 0 && c.gpuOp[from]! >= 0 && opKind === OpKind.StreamWait) {
      this.flow(c.gpuOp[from]!, gpuOp, FlowKind.EventRecordToWait);
    }
  }

  /** Links an API call to the command it issued, once both are written. */
  linkApi(apiOp: number, cmd: CmdSlot): void {
    const c = this.cmds;
    c.apiOp[cmd] = apiOp;
    const gpuOp = c.gpuOp[cmd]!;
    if (gpuOp >= 0) {
      this.flow(apiOp, gpuOp, FlowKind.ApiToGpu);
    }
  }

  recordToWait(record: CmdSlot, waitOp: number): void {
    const gpuOp = this.cmds.gpuOp[record]!;
    if (gpuOp >= 0) {
      this.flow(gpuOp, waitOp, FlowKind.EventRecordToWait);
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
