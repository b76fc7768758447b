import { OpFlag, OpKind } from '@streamscope/trace';
import type { PlanOp } from '@streamscope/workload';
import { CommandFactory } from './commands.ts';
import type { HostThreadState, PendingCall, SimCore } from './core.ts';
import { EventType } from './event-heap.ts';
import type { Cmd } from './model.ts';
import { CmdKind } from './model.ts';

/**
 * Runs host threads: each plan op is an API call with a host cost; blocking calls park the
 * thread until what they wait for has signalled. A thread runs on without events while
 * nothing else is due before it, so long streams of launches cost one loop each.
 */
export class HostRunner {
  private readonly factory: CommandFactory;
  untilNs = Infinity;

  constructor(private readonly core: SimCore) {
    this.factory = new CommandFactory(core);
    core.resumeThread = (t) => core.heap.push(core.nowNs, EventType.HostResume, t);
  }

  run(t: HostThreadState): void {
    const core = this.core;
    if (t.done) {
      return;
    }
    t.blocked = false;
    let nextNs = core.nowNs;
    if (t.call !== null) {
      nextNs = this.finishCall(t, Math.max(t.call.minEndNs, core.nowNs + t.call.afterWaitNs));
    }
    for (;;) {
      if (nextNs > core.nowNs) {
        core.settle();
        if (nextNs > core.heap.peekTimeNs() || nextNs > this.untilNs) {
          core.heap.push(nextNs, EventType.HostResume, t);
          return;
        }
        core.nowNs = nextNs;
      }
      const op = t.plan.ops[t.pc];
      if (op === undefined) {
        t.done = true;
        core.closeAllGroups();
        core.settle();
        return;
      }
      nextNs = Math.round(this.exec(t, op));
      if (nextNs < 0) {
        core.settle();
        return;
      }
    }
  }

  /** Completes a blocking call at `endNs`: its API op enters the trace. Returns `endNs`. */
  private finishCall(t: HostThreadState, endNs: number): number {
    const call = t.call!;
    t.call = null;
    const w = this.core.writer;
    const apiOp = w.host(
      t.track,
      call.startNs,
      endNs,
      OpKind.ApiCall,
      call.nameId,
      call.correlationId,
      call.flags,
    );
    if (call.cmd !== null) {
      w.linkApi(apiOp, call.cmd);
    }
    if (call.flowFrom !== null) {
      w.recordToWait(call.flowFrom, apiOp);
    }
    t.pc++;
    return endNs;
  }

  /** Starts a call that may block: returns when it continues, or -1 while it waits. */
  private blockingCall(t: HostThreadState, call: PendingCall, waitOn: readonly Cmd[]): number {
    t.call = call;
    if (this.core.waitFor(t, waitOn)) {
      return -1;
    }
    return this.finishCall(t, Math.max(call.minEndNs, this.core.nowNs + call.afterWaitNs));
  }

  /** A launch blocks while the device has too much queued; returns true when it must wait. */
  private throttle(t: HostThreadState, device: number, launches: number): boolean {
    const core = this.core;
    const pending = core.pending[device]!;
    if (pending > 0 && pending + launches > core.profile.maxPendingLaunches) {
      core.throttled[device]!.push(t.id);
      t.blocked = true;
      return true;
    }
    return false;
  }

  private recordNotIssued(t: HostThreadState, afterRecord: number | null): boolean {
    const core = this.core;
    if (afterRecord === null || core.issuedRecords.has(afterRecord)) {
      return false;
    }
    const list = core.waitingForRecord.get(afterRecord) ?? [];
    list.push(t.id);
    core.waitingForRecord.set(afterRecord, list);
    t.blocked = true;
    return true;
  }

  private api(
    t: HostThreadState,
    name: string,
    costNs: number,
    correlationId = 0,
    flags = 0,
  ): number {
    const core = this.core;
    return core.writer.host(
      t.track,
      core.nowNs,
      core.nowNs + costNs,
      OpKind.ApiCall,
      core.writer.name(name),
      correlationId,
      flags,
    );
  }

  private exec(t: HostThreadState, op: PlanOp): number {
    const core = this.core;
    const p = core.profile;
    const now = core.nowNs;
    const w = core.writer;
    if (op.kind !== 'kernel') {
      core.closeAllGroups();
    }
    switch (op.kind) {
      case 'kernel':
      case 'memset':
      case 'hostFunc':
      case 'copy': {
        const device = core.stream(op.stream).device;
        const costNs =
          op.kind === 'kernel'
            ? p.api.launchKernel
            : op.kind === 'copy'
              ? p.api.memcpy
              : op.kind === 'memset'
                ? p.api.memset
                : p.api.launchHostFunc;
        const blocks = isBlocking(core, op);
        if (!blocks && this.throttle(t, device, 1)) {
          return -1;
        }
        const correlationId = core.nextCorrelation++;
        const cmd = this.factory.build(op, correlationId, now + costNs + p.submitLatencyNs, 0);
        core.issue(cmd, null, p.streamGapNs);
        const name = apiName(core, op);
        if (blocks) {
          const call: PendingCall = {
            startNs: now,
            nameId: w.name(name),
            correlationId,
            flags: OpFlag.Sync,
            minEndNs: now + costNs,
            afterWaitNs: p.api.sync,
            cmd,
            flowFrom: null,
          };
          return this.blockingCall(t, call, [cmd]);
        }
        w.linkApi(this.api(t, name, costNs, correlationId), cmd);
        t.pc++;
        return now + costNs;
      }
      case 'eventRecord': {
        const correlationId = core.nextCorrelation++;
        const cost = p.api.eventRecord;
        const cmd = core.newCmd(
          CmdKind.Marker,
          core.stream(op.stream),
          now + cost + p.submitLatencyNs,
          OpKind.EventRecord,
          w.name('event record'),
          correlationId,
          0,
          0,
          op.event,
        );
        core.issue(cmd, null, 0);
        core.latestRecord[op.event] = cmd;
        core.issuedRecords.add(op.opId);
        for (const waiting of core.waitingForRecord.get(op.opId) ?? []) {
          core.resumeThread(core.threads[waiting]!);
        }
        core.waitingForRecord.delete(op.opId);
        w.linkApi(this.api(t, 'cudaEventRecord', cost, correlationId), cmd);
        t.pc++;
        return now + cost;
      }
      case 'streamWait': {
        if (this.recordNotIssued(t, op.afterRecord)) {
          return -1;
        }
        const correlationId = core.nextCorrelation++;
        const cost = p.api.streamWait;
        const record = core.latestRecord[op.event] ?? null;
        const cmd = core.newCmd(
          CmdKind.Marker,
          core.stream(op.stream),
          now + cost + p.submitLatencyNs,
          OpKind.StreamWait,
          w.name('stream wait'),
          correlationId,
          0,
          0,
          op.event,
        );
        cmd.flowFrom = record;
        core.issue(cmd, record, 0);
        w.linkApi(this.api(t, 'cudaStreamWaitEvent', cost, correlationId), cmd);
        t.pc++;
        return now + cost;
      }
      case 'eventSync': {
        if (this.recordNotIssued(t, op.afterRecord)) {
          return -1;
        }
        const record = core.latestRecord[op.event] ?? null;
        return this.syncCall(t, 'cudaEventSynchronize', record === null ? [] : [record], record);
      }
      case 'streamSync': {
        const last = core.stream(op.stream).lastCmd;
        return this.syncCall(t, 'cudaStreamSynchronize', last === null ? [] : [last], null);
      }
      case 'deviceSync':
        return this.syncCall(t, 'cudaDeviceSynchronize', core.deviceTails(op.device), null);
      case 'hostWork':
        w.host(t.track, now, now + op.durNs, OpKind.HostWork, w.name(op.name), 0, 0);
        t.pc++;
        return now + op.durNs;
      case 'malloc':
      case 'free':
        return this.memory(t, op);
      case 'graphCapture': {
        const nodes = core.plan.graphs[op.graph]!.ops.length;
        const cost = p.api.graphInstantiate + nodes * p.api.graphInstantiatePerNode;
        this.api(t, 'cudaGraphInstantiate', cost);
        t.pc++;
        return now + cost;
      }
      case 'graphLaunch':
        return this.graphLaunch(t, op.graph, op.stream, op.count);
      case 'rangePush':
        t.ranges.push({ nameId: w.name(op.name), startNs: now });
        t.pc++;
        return now;
      case 'rangePop': {
        const range = t.ranges.pop();
        if (range !== undefined) {
          w.range(t.track, range.startNs, now, range.nameId, t.ranges.length);
        }
        t.pc++;
        return now;
      }
    }
  }

  private syncCall(
    t: HostThreadState,
    name: string,
    waitOn: readonly Cmd[],
    flowFrom: Cmd | null,
  ): number {
    const now = this.core.nowNs;
    const call: PendingCall = {
      startNs: now,
      nameId: this.core.writer.name(name),
      correlationId: 0,
      flags: 0,
      minEndNs: now,
      afterWaitNs: this.core.profile.api.sync,
      cmd: null,
      flowFrom,
    };
    return this.blockingCall(t, call, waitOn);
  }

  private memory(t: HostThreadState, op: Extract<PlanOp, { kind: 'malloc' | 'free' }>): number {
    const core = this.core;
    const p = core.profile;
    const now = core.nowNs;
    const buffer = core.plan.buffers[op.buffer]!;
    const isMalloc = op.kind === 'malloc';
    if (op.async && op.stream !== null) {
      const correlationId = core.nextCorrelation++;
      const cost = p.api.mallocAsync;
      const cmd = core.newCmd(
        CmdKind.Delay,
        core.stream(op.stream),
        now + cost + p.submitLatencyNs,
        isMalloc ? OpKind.Alloc : OpKind.Free,
        core.writer.name(buffer.name),
        correlationId,
        buffer.bytes,
      );
      cmd.delayNs = p.asyncAllocNs;
      core.issue(cmd, null, 0);
      core.writer.linkApi(
        this.api(t, isMalloc ? 'cudaMallocAsync' : 'cudaFreeAsync', cost, correlationId),
        cmd,
      );
      t.pc++;
      return now + cost;
    }
    if (buffer.kind === 'host-pageable') {
      this.api(t, isMalloc ? 'malloc' : 'free', 1_000);
      t.pc++;
      return now + 1_000;
    }
    // cudaMalloc, cudaFree, cudaMallocHost and cudaFreeHost synchronize the device first.
    const pinned = buffer.kind === 'host-pinned';
    const name = pinned
      ? isMalloc
        ? 'cudaMallocHost'
        : 'cudaFreeHost'
      : isMalloc
        ? 'cudaMalloc'
        : 'cudaFree';
    const cost =
      pinned && isMalloc
        ? p.api.mallocHost + (buffer.bytes / p.api.pinBytesPerS) * 1e9
        : isMalloc
          ? p.api.malloc
          : p.api.free;
    const call: PendingCall = {
      startNs: now,
      nameId: core.writer.name(name),
      correlationId: 0,
      flags: OpFlag.Sync,
      minEndNs: now + cost,
      afterWaitNs: cost,
      cmd: null,
      flowFrom: null,
    };
    return this.blockingCall(t, call, core.deviceTails(core.plan.threads[t.id]!.device));
  }

  private graphLaunch(
    t: HostThreadState,
    graphId: number,
    streamId: number,
    count: number,
  ): number {
    const core = this.core;
    const p = core.profile;
    const now = core.nowNs;
    const graph = core.plan.graphs[graphId]!;
    if (this.throttle(t, core.stream(streamId).device, graph.ops.length)) {
      return -1;
    }
    const correlationId = core.nextCorrelation++;
    const cost = p.api.graphLaunch;
    const apiOp = this.api(t, 'cudaGraphLaunch', cost, correlationId);
    let first = true;
    for (const node of graph.ops) {
      if (
        node.kind === 'kernel' ||
        node.kind === 'copy' ||
        node.kind === 'memset' ||
        node.kind === 'hostFunc'
      ) {
        const cmd = this.factory.build(
          { ...node, stream: streamId },
          correlationId,
          now + cost + p.submitLatencyNs,
          OpFlag.InGraph,
        );
        core.issue(cmd, null, first ? p.streamGapNs : p.graphNodeGapNs);
        core.writer.linkApi(apiOp, cmd);
        first = false;
      }
    }
    t.sub++;
    if (t.sub >= count) {
      t.sub = 0;
      t.pc++;
    }
    return now + cost;
  }
}

function isBlocking(core: SimCore, op: PlanOp): boolean {
  if (op.kind === 'copy') {
    const pageable =
      core.plan.buffers[op.srcBuffer]!.kind === 'host-pageable' ||
      core.plan.buffers[op.dstBuffer]!.kind === 'host-pageable';
    // Pageable copies stage through a bounce buffer and return when done; cudaMemcpy blocks
    // except device to device.
    return pageable || (!op.async && op.direction !== 'dtod');
  }
  if (op.kind === 'memset') {
    return !op.async && core.plan.buffers[op.buffer]!.kind === 'host-pinned';
  }
  return false;
}

function apiName(core: SimCore, op: PlanOp): string {
  switch (op.kind) {
    case 'kernel':
      return 'cudaLaunchKernel';
    case 'memset':
      return op.async ? 'cudaMemsetAsync' : 'cudaMemset';
    case 'hostFunc':
      return 'cudaLaunchHostFunc';
    case 'copy':
      if (op.direction === 'ptop') {
        return op.async ? 'cudaMemcpyPeerAsync' : 'cudaMemcpyPeer';
      }
      return op.async ? 'cudaMemcpyAsync' : 'cudaMemcpy';
    default:
      return core.writer.trace.name(0);
  }
}
