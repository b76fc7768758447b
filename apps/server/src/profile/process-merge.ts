import type { ApplyResult, RangeKind, Trace } from '@streamscope/trace';
import { OpKind, TraceDecoder, noRef } from '@streamscope/trace';

/**
 * One profiled process's record stream, folded into the run's trace. Every process numbers its
 * strings, tracks, launches and ops from 0 in its own codec stream; the stream is decoded (and so
 * validated whole, batch by batch) into the process's own trace, and what is new is appended to
 * the run's trace with its ids remapped and its times moved onto the run's origin.
 */
export class ProcessMerge {
  private readonly decoder = new TraceDecoder();
  private readonly stringIds: number[] = [0];
  private readonly trackIds: number[] = [];
  private readonly launchIds: number[] = [];
  private opIds = new Uint32Array(1024);
  private merged = { devices: 0, processes: 0, tracks: 0, ops: 0, flows: 0, ranges: 0 };
  private shiftNs: number | undefined;
  /** Ops (and ranges) that began before the run's time 0, placed at 0. */
  clampedBefore = 0;

  constructor(
    private readonly run: Trace,
    private readonly runOriginNs: bigint,
  ) {}

  /** The process's own trace (its meta names its origin and producer). */
  get own(): Trace {
    return this.decoder.trace;
  }

  /** Applies one frame's batches; throws CodecError (naming batch, record and field) on bad input. */
  apply(batches: Uint8Array): ApplyResult {
    const result = this.decoder.apply(batches);
    this.mergeNew();
    return result;
  }

  private shift(): number {
    if (this.shiftNs === undefined) {
      // The process's origin is absolute ns in the machine's clock; the run's is too.
      this.shiftNs = Number(BigInt(this.own.meta.originNs) - this.runOriginNs);
    }
    return this.shiftNs;
  }

  private at(ns: number): number {
    const t = ns + this.shift();
    if (t < 0) {
      this.clampedBefore++;
      return 0;
    }
    return t;
  }

  private string(id: number): number {
    let mapped = this.stringIds[id];
    if (mapped === undefined) {
      for (let i = this.stringIds.length; i <= id; i++) {
        this.stringIds[i] = this.run.strings.intern(this.own.strings.get(i));
      }
      mapped = this.stringIds[id]!;
    }
    return mapped;
  }

  private launch(id: number): number {
    let mapped = this.launchIds[id];
    if (mapped === undefined) {
      const config = this.own.launches.get(id);
      mapped = config === undefined ? noRef : this.run.launches.intern(config);
      this.launchIds[id] = mapped;
    }
    return mapped;
  }

  private mergeNew(): void {
    const own = this.own;
    const run = this.run;
    const m = this.merged;
    for (; m.devices < own.devices.length; m.devices++) {
      const device = own.devices[m.devices]!;
      // One machine: device N of two processes is one GPU (unless they mask devices differently).
      if (!run.devices.some((d) => d.deviceId === device.deviceId)) {
        run.addDevice(device);
      }
    }
    for (; m.processes < own.processes.length; m.processes++) {
      run.addProcess(own.processes[m.processes]!);
    }
    for (; m.tracks < own.tracks.length; m.tracks++) {
      this.trackIds.push(run.addTrack(own.tracks[m.tracks]!));
    }
    const ops = own.ops.columns();
    if (ops.count > this.opIds.length) {
      const grown = new Uint32Array(Math.max(ops.count, this.opIds.length * 2));
      grown.set(this.opIds);
      this.opIds = grown;
    }
    for (let i = m.ops; i < ops.count; i++) {
      const kind = ops.kind[i]!;
      const refId = ops.refId[i]!;
      const startNs = this.at(ops.startNs[i]!);
      this.opIds[i] = run.addOp({
        startNs,
        endNs: Math.max(startNs, ops.endNs[i]! + this.shift()),
        track: this.trackIds[ops.track[i]!]!,
        kind,
        nameId: this.string(ops.nameId[i]!),
        bytes: ops.bytes[i]!,
        memKinds: ops.memKinds[i]!,
        correlationId: ops.correlationId[i]!,
        refId: kind === OpKind.Kernel && refId !== noRef ? this.launch(refId) : noRef,
        flags: ops.flags[i]!,
      });
    }
    m.ops = ops.count;
    const flows = own.flows.columns();
    for (let i = m.flows; i < flows.count; i++) {
      run.flows.append(
        this.opIds[flows.fromOp[i]!]!,
        this.opIds[flows.toOp[i]!]!,
        flows.kind[i]! as 0 | 1 | 2,
      );
    }
    m.flows = flows.count;
    const ranges = own.ranges.columns();
    for (let i = m.ranges; i < ranges.count; i++) {
      const startNs = this.at(ranges.startNs[i]!);
      const domainId = ranges.domainId[i]!;
      run.ranges.append({
        startNs,
        endNs: Math.max(startNs, ranges.endNs[i]! + this.shift()),
        track: this.trackIds[ranges.track[i]!]!,
        nameId: this.string(ranges.nameId[i]!),
        domainId: domainId === 0 ? 0 : this.string(domainId),
        depth: ranges.depth[i]!,
        kind: ranges.kind[i]! as RangeKind,
      });
    }
    m.ranges = ranges.count;
    if (flows.count > 0 || ranges.count > 0) {
      run.version++;
    }
  }
}
