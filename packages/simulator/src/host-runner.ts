import { OpFlag, OpKind, noRef } from '@streamscope/trace';
import type { PlanOp } from '@streamscope/workload';
import { CmdKind } from './command-store.ts';
import { CommandFactory } from './commands.ts';
import type { HostThreadState, SimCore } from './core.ts';
import { EventType } from './event-heap.ts';
import { apiName, callShape, firstUseCall } from './host-api.ts';
import { HostCalls } from './host-calls.ts';
import { FixedName } from './fixed-names.ts';

const ncclCallNames = {
  allReduce: 'ncclAllReduce',
  reduceScatter: 'ncclReduceScatter',
  allGather: 'ncclAllGather',
  broadcast: 'ncclBroadcast',
} as const;

/**
 * Runs host threads: each plan op is an API call with a host cost; blocking calls park the
 * thread until what they wait for has signalled. A thread runs on without events while
 * nothing else is due before it, so long streams of launches cost one loop each.
 */
export class HostRunner {
  private readonly factory: CommandFactory;
  private readonly calls: HostCalls;
  /** Graphs launched at least once (their first launch uploads them). */
  private readonly launchedGraphs = new Set<number>();
  untilNs = Infinity;

  constructor(private readonly core: SimCore) {
    this.factory = new CommandFactory(core);
    this.calls = new HostCalls(core);
    core.resumeThread = (t) => core.heap.push(core.nowNs, EventType.HostResume, t.id);
  }

  run(t: HostThreadState): void {
    const core = this.core;
    if (t.done) {
      return;
    }
    t.blocked = false;
    let nextNs = core.nowNs;
    if (t.call.active) {
      nextNs = this.calls.finish(t, Math.max(t.call.minEndNs, core.nowNs + t.call.afterWaitNs));
    }
    for (;;) {
      if (nextNs > core.nowNs) {
        core.settle();
        if (nextNs > core.heap.peekTimeNs() || nextNs > this.untilNs) {
          core.heap.push(nextNs, EventType.HostResume, t.id);
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

  /** A record some thread waits for was issued: those threads go on. */
  private recordIssued(opId: number): void {
    const core = this.core;
    core.issuedRecords.add(opId);
    for (const waiting of core.waitingForRecord.get(opId) ?? []) {
      core.resumeThread(core.threads[waiting]!);
    }
    core.waitingForRecord.delete(opId);
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
        const shape = callShape(p, core.plan, op, p.api.sync);
        if (!shape.blocks && this.throttle(t, device, 1)) {
          return -1;
        }
        const call = firstUseCall(op);
        const costNs = shape.costNs + (call === null ? 0 : core.firstUse(call));
        const correlationId = core.nextCorrelation++;
        const arrivalNs = now + costNs + p.submitLatencyNs;
        const cmd = this.factory.build(
          op,
          op.stream,
          correlationId,
          arrivalNs,
          0,
          shape.stagedWhole,
        );
        core.issue(cmd, -1, p.streamGapNs);
        const name = apiName(op);
        if (shape.blocks) {
          const nameId = w.fixed(name);
          this.calls.begin(
            t,
            nameId,
            correlationId,
            OpFlag.Sync,
            now + costNs,
            shape.tailNs,
            cmd,
            -1,
          );
          return this.calls.endOrWait(t, core.waitFor(t, cmd));
        }
        w.linkApi(this.calls.api(t, w.fixed(name), costNs, correlationId), cmd);
        t.pc++;
        return now + costNs + core.gapAfterCall(t);
      }
      case 'eventRecord': {
        const correlationId = core.nextCorrelation++;
        const cost = p.api.eventRecord + core.firstUse('eventRecord');
        const cmd = core.cmds.alloc(
          CmdKind.Marker,
          core.stream(op.stream).plan.id,
          now + cost + p.submitLatencyNs,
          OpKind.EventRecord,
          w.fixed(FixedName.EventRecord),
          correlationId,
          0,
          0,
          op.event,
          0,
        );
        core.issue(cmd, -1, p.eventRecordGapNs);
        const previous = core.latestRecord[op.event]!;
        if (previous >= 0) {
          core.cmds.release(previous);
        }
        core.latestRecord[op.event] = cmd;
        core.cmds.retain(cmd);
        if (core.awaitedRecords.has(op.opId)) {
          this.recordIssued(op.opId);
        }
        w.linkApi(this.calls.api(t, w.fixed(FixedName.CudaEventRecord), cost, correlationId), cmd);
        t.pc++;
        return now + cost + core.gapAfterCall(t);
      }
      case 'streamWait': {
        if (this.recordNotIssued(t, op.afterRecord)) {
          return -1;
        }
        const correlationId = core.nextCorrelation++;
        const cost = p.api.streamWait + core.firstUse('streamWait');
        const record = core.latestRecord[op.event]!;
        const cmd = core.cmds.alloc(
          CmdKind.Marker,
          core.stream(op.stream).plan.id,
          now + cost + p.submitLatencyNs,
          OpKind.StreamWait,
          w.fixed(FixedName.StreamWait),
          correlationId,
          0,
          0,
          op.event,
          0,
        );
        if (record >= 0) {
          // Held until this wait is freed: its flow needs the record's op.
          core.cmds.flowFrom[cmd] = record;
          core.cmds.retain(record);
        }
        core.issue(cmd, record, 0);
        w.linkApi(
          this.calls.api(t, w.fixed(FixedName.CudaStreamWaitEvent), cost, correlationId),
          cmd,
        );
        t.pc++;
        return now + cost + core.gapAfterCall(t);
      }
      case 'eventSync': {
        if (this.recordNotIssued(t, op.afterRecord)) {
          return -1;
        }
        const record = core.latestRecord[op.event]!;
        this.calls.begin(t, w.name('cudaEventSynchronize'), 0, 0, now, p.api.sync, -1, record);
        return this.calls.endOrWait(t, core.waitFor(t, record));
      }
      case 'streamSync': {
        const last = core.stream(op.stream).lastCmd;
        this.calls.begin(t, w.name('cudaStreamSynchronize'), 0, 0, now, p.api.sync, -1, -1);
        return this.calls.endOrWait(t, core.waitFor(t, last));
      }
      case 'deviceSync':
        this.calls.begin(t, w.name('cudaDeviceSynchronize'), 0, 0, now, p.api.sync, -1, -1);
        return this.calls.endOrWait(t, core.waitForDevice(t, op.device));
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
        this.calls.api(t, w.name('cudaGraphInstantiate'), cost);
        t.pc++;
        return now + cost + core.gapAfterCall(t);
      }
      case 'graphLaunch':
        return this.graphLaunch(t, op.graph, op.stream, op.count);
      case 'collective':
      case 'send':
      case 'recv':
        return this.communication(t, op);
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

  /** One NCCL group call: a kernel per member (or one half of a send/recv pair). */
  private communication(
    t: HostThreadState,
    op: Extract<PlanOp, { kind: 'collective' | 'send' | 'recv' }>,
  ): number {
    const core = this.core;
    const p = core.profile;
    const now = core.nowNs;
    const coll = core.collectives!;
    const streams = op.kind === 'collective' ? op.members.map((m) => m.stream) : [op.stream];
    for (const s of streams) {
      if (this.throttle(t, core.stream(s).device, 1)) {
        return -1;
      }
    }
    const correlationId = core.nextCorrelation++;
    const cost = coll.hostCostNs(op);
    const arrivalNs = now + cost + p.submitLatencyNs;
    const cmds =
      op.kind === 'collective'
        ? coll.collective(op, correlationId, arrivalNs)
        : [coll.p2p(op, correlationId, arrivalNs)];
    const name =
      op.kind === 'collective'
        ? ncclCallNames[op.collective]
        : `nccl${op.kind === 'send' ? 'Send' : 'Recv'}`;
    const apiOp = this.calls.api(t, core.writer.name(name), cost, correlationId);
    for (const cmd of cmds) {
      core.issue(cmd, -1, p.streamGapNs);
      core.writer.linkApi(apiOp, cmd);
    }
    t.pc++;
    return now + cost + core.gapAfterCall(t);
  }

  private memory(t: HostThreadState, op: Extract<PlanOp, { kind: 'malloc' | 'free' }>): number {
    const core = this.core;
    const p = core.profile;
    const now = core.nowNs;
    const buffer = core.plan.buffers[op.buffer]!;
    const isMalloc = op.kind === 'malloc';
    if (op.async && op.stream !== null) {
      const correlationId = core.nextCorrelation++;
      const cost = p.api.mallocAsync + (isMalloc ? core.firstUse('mallocAsync') : 0);
      const cmd = core.cmds.alloc(
        CmdKind.Delay,
        core.stream(op.stream).plan.id,
        now + cost + p.submitLatencyNs,
        isMalloc ? OpKind.Alloc : OpKind.Free,
        core.writer.name(buffer.name),
        correlationId,
        buffer.bytes,
        0,
        noRef,
        0,
      );
      core.cmds.delayNs[cmd] = p.asyncAllocNs;
      core.issue(cmd, -1, 0);
      core.writer.linkApi(
        this.calls.api(
          t,
          core.writer.name(isMalloc ? 'cudaMallocAsync' : 'cudaFreeAsync'),
          cost,
          correlationId,
        ),
        cmd,
      );
      t.pc++;
      return now + cost + core.gapAfterCall(t);
    }
    if (buffer.kind === 'host-pageable') {
      this.calls.api(t, core.writer.name(isMalloc ? 'malloc' : 'free'), 1_000);
      t.pc++;
      return now + 1_000 + core.gapAfterCall(t);
    }
    // cudaMallocHost and cudaFreeHost synchronize the device first; cudaMalloc and cudaFree
    // where the profile says so (on Hopper cudaFree does, cudaMalloc does not).
    const pinned = buffer.kind === 'host-pinned';
    const name = pinned
      ? isMalloc
        ? 'cudaMallocHost'
        : 'cudaFreeHost'
      : isMalloc
        ? 'cudaMalloc'
        : 'cudaFree';
    const gib = buffer.bytes / 1024 ** 3;
    const cost = pinned
      ? (isMalloc ? p.api.mallocHost : p.api.free) + (buffer.bytes / p.api.pinBytesPerS) * 1e9
      : isMalloc
        ? p.api.malloc + gib * p.api.mallocPerGiB + core.firstUse('malloc')
        : p.api.free + gib * p.api.freePerGiB;
    const syncs = pinned || (isMalloc ? p.mallocSyncs : p.freeSyncs);
    this.calls.begin(
      t,
      core.writer.name(name),
      0,
      syncs ? OpFlag.Sync : 0,
      now + cost,
      cost,
      -1,
      -1,
    );
    return this.calls.endOrWait(t, syncs && core.waitForDevice(t, core.plan.threads[t.id]!.device));
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
    // The first launch of a graph uploads it to the device.
    const first = !this.launchedGraphs.has(graphId);
    this.launchedGraphs.add(graphId);
    const cost =
      p.api.graphLaunch +
      graph.ops.length * p.api.graphLaunchPerNode +
      (first ? p.graphFirstLaunchExtraNs : 0);
    const apiOp = this.calls.api(t, core.writer.name('cudaGraphLaunch'), cost, correlationId);
    let firstNode = true;
    for (const node of graph.ops) {
      if (
        node.kind === 'kernel' ||
        node.kind === 'copy' ||
        node.kind === 'memset' ||
        node.kind === 'hostFunc'
      ) {
        const cmd = this.factory.build(
          node,
          streamId,
          correlationId,
          now + cost + p.submitLatencyNs,
          OpFlag.InGraph,
        );
        core.issue(
          cmd,
          -1,
          firstNode ? Math.max(p.streamGapNs, p.graphLaunchGapNs) : p.graphNodeGapNs,
        );
        core.writer.linkApi(apiOp, cmd);
        firstNode = false;
      }
    }
    t.sub++;
    if (t.sub >= count) {
      t.sub = 0;
      t.pc++;
    }
    return now + cost + core.gapAfterCall(t, p.graphCallGapNs);
  }
}
