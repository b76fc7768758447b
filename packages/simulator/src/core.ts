import type { Trace } from '@streamscope/trace';
import { OpKind } from '@streamscope/trace';
import type { Plan, PlanThread } from '@streamscope/workload';
import { DeviceEngine } from './device-engine.ts';
import type { EngineHost } from './device-engine.ts';
import { EventHeap, EventType } from './event-heap.ts';
import type { HostWait, KernelGroup, SimStream, Wave } from './model.ts';
import { Cmd, CmdKind, CmdPool } from './model.ts';
import type { DeviceProfile } from './profile.ts';
import { TraceWriter } from './trace-writer.ts';

const launchBatch = 64;

/** A blocking API call in progress on a host thread. */
export interface PendingCall {
  readonly startNs: number;
  readonly nameId: number;
  readonly correlationId: number;
  readonly flags: number;
  /** The call returns no earlier than this (its own cost). */
  readonly minEndNs: number;
  /** Added after the wait ends (sync call return). */
  readonly afterWaitNs: number;
  readonly cmd: Cmd | null;
  readonly flowFrom: Cmd | null;
}

export interface HostThreadState {
  readonly id: number;
  readonly plan: PlanThread;
  readonly track: number;
  pc: number;
  /** Graph launches done of the current graphLaunch op. */
  sub: number;
  blocked: boolean;
  done: boolean;
  call: PendingCall | null;
  readonly ranges: { nameId: number; startNs: number }[];
}

/**
 * The discrete-event core: the clock, the event heap, streams and their ordering rules
 * (stream FIFO, legacy default stream barrier, event dependencies), command completion and
 * signals, and the trace writer. Host threads drive it through `issue` (host-ops.ts).
 */
export class SimCore implements EngineHost {
  nowNs = 0;
  readonly heap = new EventHeap();
  readonly pool = new CmdPool();
  readonly writer: TraceWriter;
  readonly devices: DeviceEngine[];
  readonly streams: (SimStream | undefined)[] = [];
  readonly threads: HostThreadState[] = [];
  /** Latest issued record of each event. */
  readonly latestRecord: (Cmd | null)[];
  /** Record op ids issued so far that some other thread waits for. */
  readonly issuedRecords = new Set<number>();
  readonly waitingForRecord = new Map<number, number[]>();
  readonly pending: number[];
  readonly throttled: number[][];
  private readonly openGroup: (KernelGroup | null)[];
  private readonly readyQueue: Cmd[] = [];
  private readonly dirty: boolean[];
  private nextSeq = 0;
  nextCorrelation = 1;
  resumeThread: (thread: HostThreadState) => void = () => undefined;

  constructor(
    readonly plan: Plan,
    readonly profile: DeviceProfile,
    readonly trace: Trace,
  ) {
    this.writer = new TraceWriter(trace);
    this.devices = plan.devices.map((d) => new DeviceEngine(d.id, profile, this));
    this.latestRecord = plan.events.map(() => null);
    this.pending = plan.devices.map(() => 0);
    this.throttled = plan.devices.map(() => []);
    this.openGroup = plan.devices.map(() => null);
    this.dirty = plan.devices.map(() => false);
  }

  addStream(stream: SimStream): void {
    this.streams[stream.plan.id] = stream;
  }

  stream(id: number): SimStream {
    const s = this.streams[id];
    if (s === undefined) {
      throw new Error(`stream ${id} has no track`);
    }
    return s;
  }

  newCmd(
    kind: CmdKind,
    stream: SimStream,
    arrivalNs: number,
    opKind: number,
    nameId: number,
    correlationId: number,
    bytes = 0,
    memKinds = 0,
    refId = 0xffffffff,
    flags = 0,
  ): Cmd {
    return new Cmd(
      this.pool,
      this.nextSeq++,
      kind,
      stream,
      arrivalNs,
      opKind,
      nameId,
      correlationId,
      bytes,
      memKinds,
      refId,
      flags,
    );
  }

  /**
   * Issues a command to its stream at `nowNs`: adds the legacy-stream barrier and `extraDep`,
   * closes or extends a Fermi kernel group, and makes it ready if it is its stream's turn.
   */
  issue(cmd: Cmd, extraDep: Cmd | null, gapNs: number): void {
    const stream = cmd.stream;
    const device = stream.device;
    if (extraDep !== null && !extraDep.signalled) {
      this.addDep(cmd, extraDep);
    }
    const devStreams = this.deviceStreams[device]!;
    if (stream.isLegacy) {
      for (const s of devStreams) {
        if (s.isBlocking && s.lastCmd !== null && !s.lastCmd.signalled) {
          this.addDep(cmd, s.lastCmd);
        }
      }
    } else if (stream.isBlocking) {
      const legacy = this.streams[device];
      if (legacy?.lastCmd != null && !legacy.lastCmd.signalled) {
        this.addDep(cmd, legacy.lastCmd);
      }
    }
    if (this.profile.delayedKernelSignal) {
      this.groupOnIssue(cmd, device);
    }
    cmd.gapNs = gapNs;
    const wasIdle = stream.front() === undefined;
    stream.push(cmd);
    this.pending[device]!++;
    if (cmd.kind === CmdKind.Compute || cmd.kind === CmdKind.Copy) {
      this.devices[device]!.enqueue(cmd);
    }
    if (wasIdle) {
      this.becomeFront(cmd);
    }
  }

  deviceStreams: SimStream[][] = [];

  private addDep(cmd: Cmd, dep: Cmd): void {
    (dep.waiters ??= []).push(cmd);
    cmd.pendingDeps++;
  }

  private groupOnIssue(cmd: Cmd, device: number): void {
    const open = this.openGroup[device] ?? null;
    if (cmd.opKind !== OpKind.Kernel) {
      this.closeGroup(device);
      return;
    }
    if (
      open !== null &&
      open.members.some((m) => m.stream === cmd.stream || (m.waiters?.includes(cmd) ?? false))
    ) {
      this.closeGroup(device);
    }
    let group = this.openGroup[device] ?? null;
    if (group === null) {
      group = { members: [], done: 0, closed: false };
      this.openGroup[device] = group;
    }
    group.members.push(cmd);
    cmd.group = group;
  }

  /** Ends the run of back-to-back kernels; if all have finished, they signal now. */
  closeGroup(device: number): void {
    const group = this.openGroup[device];
    if (group === null || group === undefined) {
      return;
    }
    this.openGroup[device] = null;
    group.closed = true;
    if (group.done === group.members.length) {
      for (const m of group.members) {
        this.signal(m);
      }
    }
  }

  closeAllGroups(): void {
    if (!this.profile.delayedKernelSignal) {
      return;
    }
    for (let d = 0; d < this.openGroup.length; d++) {
      this.closeGroup(d);
    }
  }

  /**
   * Its stream's turn has come. Engine work may be dispatched at once and starts at
   * `notBeforeNs` (its arrival, or the stream's gap after the previous op), which spares an
   * event per op; markers and delays must not finish early, so they wait for an event.
   */
  private becomeFront(cmd: Cmd): void {
    cmd.frontNs = this.nowNs;
    const notBefore = Math.max(cmd.arrivalNs, cmd.stream.lastSignalNs + cmd.gapNs);
    cmd.notBeforeNs = notBefore;
    if (notBefore <= this.nowNs || cmd.kind === CmdKind.Compute || cmd.kind === CmdKind.Copy) {
      cmd.arrived = true;
      this.tryReady(cmd);
    } else {
      this.heap.push(notBefore, EventType.Arrive, cmd);
    }
  }

  tryReady(cmd: Cmd): void {
    if (!cmd.ready && cmd.arrived && cmd.pendingDeps === 0 && cmd.stream.front() === cmd) {
      cmd.ready = true;
      this.readyQueue.push(cmd);
    }
  }

  /** Runs everything that follows from the current instant: ready commands, dispatch. */
  settle(): void {
    for (;;) {
      const queue = this.readyQueue;
      if (queue.length > 0) {
        for (let i = 0; i < queue.length; i++) {
          this.onReady(queue[i]!);
        }
        queue.length = 0;
      }
      let pumped = false;
      for (let d = 0; d < this.dirty.length; d++) {
        if (this.dirty[d] === true) {
          this.dirty[d] = false;
          this.devices[d]!.pump();
          pumped = true;
        }
      }
      if (!pumped && queue.length === 0) {
        return;
      }
    }
  }

  private onReady(cmd: Cmd): void {
    switch (cmd.kind) {
      case CmdKind.Marker:
        cmd.startNs = Math.min(this.nowNs, Math.max(cmd.frontNs, cmd.arrivalNs));
        this.finished(cmd);
        return;
      case CmdKind.Delay: {
        const latency = cmd.opKind === OpKind.HostFunc ? this.profile.hostFuncLatencyNs : 0;
        cmd.startNs = this.nowNs + latency;
        this.heap.push(this.nowNs + latency + cmd.delayNs, EventType.MarkerEnd, cmd);
        return;
      }
      default:
        this.dirty[cmd.stream.device] = true;
    }
  }

  /** A command finished executing: it enters the trace and signals (Fermi groups may hold it). */
  finished(cmd: Cmd): void {
    cmd.endNs = this.nowNs;
    cmd.done = true;
    this.writer.gpu(cmd);
    const device = cmd.stream.device;
    this.pending[device]!--;
    const throttled = this.throttled[device]!;
    // Throttled launchers wake once a batch of slots is free, then issue that batch in a row.
    if (
      throttled.length > 0 &&
      this.pending[device]! <= this.profile.maxPendingLaunches - launchBatch
    ) {
      for (const t of throttled) {
        this.resumeThread(this.threads[t]!);
      }
      throttled.length = 0;
    }
    const group = cmd.group;
    if (group !== null) {
      group.done++;
      if (group.closed && group.done === group.members.length) {
        for (const m of group.members) {
          this.signal(m);
        }
      }
      return;
    }
    this.signal(cmd);
  }

  private signal(cmd: Cmd): void {
    cmd.signalled = true;
    const stream = cmd.stream;
    stream.lastSignalNs = this.nowNs;
    if (stream.front() === cmd) {
      stream.pop();
      const next = stream.front();
      if (next !== undefined) {
        this.becomeFront(next);
      }
    }
    const waiters = cmd.waiters;
    if (waiters !== null) {
      cmd.waiters = null;
      for (const w of waiters) {
        if (w instanceof Cmd) {
          w.pendingDeps--;
          this.tryReady(w);
        } else {
          if (--w.remaining === 0) {
            this.resumeThread(this.threads[w.thread]!);
          }
        }
      }
    }
    cmd.release();
  }

  /** Blocks a host thread until each of `cmds` (not yet signalled) has signalled. */
  waitFor(thread: HostThreadState, cmds: readonly Cmd[]): boolean {
    const wait: HostWait = { thread: thread.id, remaining: 0 };
    for (const c of cmds) {
      if (!c.signalled) {
        (c.waiters ??= []).push(wait);
        wait.remaining++;
      }
    }
    thread.blocked = wait.remaining > 0;
    return thread.blocked;
  }

  /** Every stream's last command on a device (what cudaDeviceSynchronize waits for). */
  deviceTails(device: number): Cmd[] {
    const tails: Cmd[] = [];
    for (const s of this.deviceStreams[device] ?? []) {
      if (s.lastCmd !== null && !s.lastCmd.signalled) {
        tails.push(s.lastCmd);
      }
    }
    return tails;
  }

  /** Handles the event just popped from the heap; stale copy and wave events (rescheduled since) are skipped. */
  dispatch(event: EventHeap): void {
    switch (event.type) {
      case EventType.HostResume:
        this.resumeThread(event.target as HostThreadState);
        return;
      case EventType.Arrive: {
        const cmd = event.target as Cmd;
        cmd.arrived = true;
        this.tryReady(cmd);
        return;
      }
      case EventType.WaveEnd: {
        const wave = event.target as Wave;
        if (wave.version === event.version) {
          this.devices[wave.cmd.stream.device]!.waveEnded(wave);
        }
        return;
      }
      case EventType.CopyEnd: {
        const cmd = event.target as Cmd;
        if (!cmd.done && cmd.version === event.version) {
          this.devices[cmd.stream.device]!.copyEnded(cmd);
        }
        return;
      }
      case EventType.MarkerEnd:
        this.finished(event.target as Cmd);
        return;
    }
  }
}
