import type { Trace } from '@streamscope/trace';
import { OpKind } from '@streamscope/trace';
import type { Plan, PlanThread } from '@streamscope/workload';
import type { CmdSlot } from './command-store.ts';
import { CmdKind, CmdState, CommandStore } from './command-store.ts';
import type { Collectives } from './collectives.ts';
import { DeviceEngine } from './device-engine.ts';
import type { EngineHost } from './device-engine.ts';
import { EventHeap, EventType } from './event-heap.ts';
import { KernelGroups } from './kernel-groups.ts';
import type { SimStream } from './model.ts';
import type { DeviceProfile, FirstUseCall } from './profile.ts';
import { TraceWriter } from './trace-writer.ts';
import { WaveStore } from './wave-store.ts';

const launchBatch = 64;

/** A blocking API call in progress on a host thread (one per thread, reused). */
export interface PendingCall {
  active: boolean;
  startNs: number;
  nameId: number;
  correlationId: number;
  flags: number;
  /** The call returns no earlier than this (its own cost). */
  minEndNs: number;
  /** Added after the wait ends (sync call return). */
  afterWaitNs: number;
  /** The command it issued (retained), or -1. */
  cmd: CmdSlot;
  /** The event record it waited for (retained), or -1. */
  flowFrom: CmdSlot;
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
  readonly call: PendingCall;
  /** Commands this thread waits for that have not signalled yet. */
  waitRemaining: number;
  /** API calls it has made. */
  apiCalls: number;
  readonly ranges: { nameId: number; startNs: number }[];
}

/**
 * The discrete-event core: the clock, the event heap, streams and their ordering rules
 * (stream FIFO, legacy default stream barrier, event dependencies), command completion and
 * signals, and the trace writer. Host threads drive it through `issue` (host-runner.ts).
 */
export class SimCore implements EngineHost {
  nowNs = 0;
  readonly heap = new EventHeap();
  readonly cmds = new CommandStore();
  readonly waves = new WaveStore();
  readonly writer: TraceWriter;
  readonly devices: DeviceEngine[];
  readonly streams: (SimStream | undefined)[] = [];
  readonly threads: HostThreadState[] = [];
  deviceStreams: SimStream[][] = [];
  /** Latest issued record of each event (retained), -1 before the first. */
  readonly latestRecord: number[];
  /** Record op ids that some thread waits for (`afterRecord`), and those issued so far. */
  readonly awaitedRecords = new Set<number>();
  readonly issuedRecords = new Set<number>();
  readonly waitingForRecord = new Map<number, number[]>();
  readonly pending: number[];
  readonly throttled: number[][];
  /** Fermi's delayed kernel signal (profile.delayedKernelSignal), else null. */
  private readonly kernelGroups: KernelGroups | null;
  private readonly readyQueue: CmdSlot[] = [];
  private readonly dirty: boolean[];
  private anyDirty = false;
  nextCorrelation = 1;
  /** Collectives and send/recv of the plan (null when it has none). */
  collectives: Collectives | null = null;
  resumeThread: (thread: HostThreadState) => void = () => undefined;
  /** First-use costs the process has still to pay (0 once a call of the kind was made). */
  private readonly firstUseLeft: Record<FirstUseCall, number>;

  constructor(
    readonly plan: Plan,
    readonly profile: DeviceProfile,
    readonly trace: Trace,
  ) {
    this.writer = new TraceWriter(trace, this.cmds, this.streams);
    this.firstUseLeft = { ...profile.firstUseNs };
    this.devices = plan.devices.map((d) => new DeviceEngine(d.id, profile, this));
    this.latestRecord = plan.events.map(() => -1);
    this.pending = plan.devices.map(() => 0);
    this.throttled = plan.devices.map(() => []);
    this.kernelGroups = profile.delayedKernelSignal
      ? new KernelGroups(plan.devices.length, this.cmds, (cmd) => this.signal(cmd))
      : null;
    this.dirty = plan.devices.map(() => false);
  }

  /**
   * Host time after an API call returns before the thread's next op: the gap between calls
   * (`gapNs`: after a graph launch its own), and after a thread's first call the first-use cost
   * that follows it.
   */
  gapAfterCall(thread: HostThreadState, gapNs = this.profile.hostCallGapNs): number {
    const first = thread.apiCalls === 0;
    thread.apiCalls++;
    return gapNs + (first ? this.profile.firstCallGapNs : 0);
  }

  /** The first-use cost of `call` the first time the process makes it (profile.firstUseNs), else 0. */
  firstUse(call: FirstUseCall): number {
    const ns = this.firstUseLeft[call];
    this.firstUseLeft[call] = 0;
    return ns;
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

  /**
   * Issues a command to its stream at `nowNs`: adds the legacy-stream barrier and `extraDep`,
   * closes or extends a Fermi kernel group, and makes it ready if it is its stream's turn.
   */
  issue(cmd: CmdSlot, extraDep: CmdSlot, gapNs: number): void {
    const c = this.cmds;
    const stream = this.streams[c.stream[cmd]!]!;
    const device = stream.device;
    if (extraDep >= 0 && !c.signalled(extraDep)) {
      this.addDep(cmd, extraDep);
    }
    if (stream.isLegacy) {
      for (const s of this.deviceStreams[device]!) {
        if (s.isBlocking && s.lastCmd >= 0 && !c.signalled(s.lastCmd)) {
          this.addDep(cmd, s.lastCmd);
        }
      }
    } else if (stream.isBlocking) {
      const legacy = this.streams[device];
      if (legacy !== undefined && legacy.lastCmd >= 0 && !c.signalled(legacy.lastCmd)) {
        this.addDep(cmd, legacy.lastCmd);
      }
    }
    this.kernelGroups?.onIssue(cmd, device);
    c.gapNs[cmd] = this.gapBefore(cmd, stream, gapNs);
    const wasIdle = stream.fifo.size === 0;
    stream.fifo.push(cmd);
    c.retain(cmd);
    if (stream.lastCmd >= 0) {
      c.release(stream.lastCmd);
    }
    stream.lastCmd = cmd;
    c.retain(cmd);
    this.pending[device]!++;
    const kind = c.kind[cmd];
    if (kind === CmdKind.Compute || kind === CmdKind.Copy) {
      this.devices[device]!.enqueue(cmd, stream);
    }
    if (wasIdle) {
      this.becomeFront(cmd, stream);
    }
  }

  /**
   * The gap a kernel or copy keeps after the op before it on its stream: `gapNs` on one
   * engine, more where work passes between a copy engine and the SMs or follows a stream wait.
   */
  private gapBefore(cmd: CmdSlot, stream: SimStream, gapNs: number): number {
    const kind = this.cmds.kind[cmd];
    if (kind === CmdKind.Marker) {
      if (this.cmds.opKind[cmd] === OpKind.StreamWait) {
        stream.afterWait = true;
      }
      return gapNs;
    }
    if (kind !== CmdKind.Compute && kind !== CmdKind.Copy) {
      return gapNs;
    }
    const engine = kind === CmdKind.Copy ? 2 : 1;
    const p = this.profile;
    let gap = gapNs;
    if (stream.lastEngine !== 0 && stream.lastEngine !== engine) {
      gap = Math.max(gap, engine === 1 ? p.crossEngineGapNs.toCompute : p.crossEngineGapNs.toCopy);
    }
    if (stream.afterWait) {
      gap = Math.max(gap, p.eventWaitGapNs);
      stream.afterWait = false;
    }
    stream.lastEngine = engine;
    return gap;
  }

  private addDep(cmd: CmdSlot, dep: CmdSlot): void {
    this.cmds.addWaiter(dep, cmd);
    this.cmds.pendingDeps[cmd]!++;
  }

  closeAllGroups(): void {
    this.kernelGroups?.closeAll();
  }

  /**
   * Its stream's turn has come; it can start at `notBeforeNs` (its arrival, or the stream's gap
   * after the previous op). Until then it claims nothing: a kernel waiting out its stream's gap
   * leaves the SMs to whatever else is ready (an urgent kernel between two bulk ones), so it
   * waits for an event like markers and delays.
   */
  private becomeFront(cmd: CmdSlot, stream: SimStream): void {
    const c = this.cmds;
    c.frontNs[cmd] = this.nowNs;
    const notBefore = Math.max(c.arrivalNs[cmd]!, stream.lastSignalNs + c.gapNs[cmd]!);
    c.notBeforeNs[cmd] = notBefore;
    if (notBefore <= this.nowNs) {
      c.set(cmd, CmdState.Arrived);
      this.tryReady(cmd);
    } else {
      this.heap.push(notBefore, EventType.Arrive, cmd);
    }
  }

  tryReady(cmd: CmdSlot): void {
    const c = this.cmds;
    const state = c.state[cmd]!;
    if (
      (state & (CmdState.Ready | CmdState.Arrived)) === CmdState.Arrived &&
      c.pendingDeps[cmd] === 0 &&
      this.streams[c.stream[cmd]!]!.fifo.front() === cmd
    ) {
      c.state[cmd] = state | CmdState.Ready;
      this.readyQueue.push(cmd);
      const kind = c.kind[cmd];
      if (kind === CmdKind.Compute || kind === CmdKind.Copy) {
        this.devices[this.streams[c.stream[cmd]!]!.device]!.readyChanged(cmd);
      }
    } else if (
      this.collectives !== null &&
      c.pendingDeps[cmd] === 1 &&
      (state & (CmdState.Ready | CmdState.Arrived)) === CmdState.Arrived &&
      this.streams[c.stream[cmd]!]!.fifo.front() === cmd
    ) {
      // Due but for a collective's rendezvous (collectives.ts); reached() ignores other commands.
      this.collectives.reached(cmd);
    }
  }

  /** Runs everything that follows from the current instant: ready commands, dispatch. */
  settle(): void {
    const queue = this.readyQueue;
    while (queue.length > 0 || this.anyDirty) {
      if (queue.length > 0) {
        for (let i = 0; i < queue.length; i++) {
          this.onReady(queue[i]!);
        }
        // Emptied by pops: setting length is a runtime call, and this runs for every event.
        while (queue.length > 0) {
          queue.pop();
        }
      }
      if (this.anyDirty) {
        this.anyDirty = false;
        for (let d = 0; d < this.dirty.length; d++) {
          if (this.dirty[d] === true) {
            this.dirty[d] = false;
            this.devices[d]!.pump();
          }
        }
      }
    }
  }

  private onReady(cmd: CmdSlot): void {
    const c = this.cmds;
    switch (c.kind[cmd]) {
      case CmdKind.Marker:
        c.startNs[cmd] = Math.min(this.nowNs, Math.max(c.frontNs[cmd]!, c.arrivalNs[cmd]!));
        this.finished(cmd);
        return;
      case CmdKind.Delay: {
        const latency = c.opKind[cmd] === OpKind.HostFunc ? this.profile.hostFuncLatencyNs : 0;
        c.startNs[cmd] = this.nowNs + latency;
        this.heap.push(this.nowNs + latency + c.delayNs[cmd]!, EventType.MarkerEnd, cmd);
        return;
      }
      default:
        this.dirty[this.streams[c.stream[cmd]!]!.device] = true;
        this.anyDirty = true;
    }
  }

  /** A command finished executing: it enters the trace and signals (Fermi groups may hold it). */
  finished(cmd: CmdSlot): void {
    const c = this.cmds;
    c.endNs[cmd] = this.nowNs;
    c.set(cmd, CmdState.Done);
    this.writer.gpu(cmd);
    const device = this.streams[c.stream[cmd]!]!.device;
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
    const group = c.group[cmd]!;
    if (group >= 0) {
      this.kernelGroups!.finished(group);
      return;
    }
    this.signal(cmd);
  }

  private signal(cmd: CmdSlot): void {
    const c = this.cmds;
    c.set(cmd, CmdState.Signalled);
    const stream = this.streams[c.stream[cmd]!]!;
    stream.lastSignalNs = this.nowNs;
    const popped = stream.fifo.front() === cmd;
    if (popped) {
      stream.fifo.pop();
      const next = stream.fifo.front();
      if (next >= 0) {
        this.becomeFront(next, stream);
      }
    }
    for (let node = c.takeWaiters(cmd); node >= 0; node = c.nextWaiter(node)) {
      const w = c.waiterOf(node);
      if (w >= 0) {
        c.pendingDeps[w]!--;
        this.tryReady(w);
      } else {
        const thread = this.threads[-1 - w]!;
        if (--thread.waitRemaining === 0) {
          this.resumeThread(thread);
        }
      }
    }
    if (popped) {
      c.release(cmd);
    }
  }

  /** Blocks a host thread until `cmd` (-1 for none) has signalled; returns whether it blocked. */
  waitFor(thread: HostThreadState, cmd: CmdSlot): boolean {
    thread.waitRemaining = 0;
    this.addWait(thread, cmd);
    thread.blocked = thread.waitRemaining > 0;
    return thread.blocked;
  }

  /** Blocks a host thread until every stream of `device` has signalled its last command. */
  waitForDevice(thread: HostThreadState, device: number): boolean {
    thread.waitRemaining = 0;
    for (const s of this.deviceStreams[device] ?? []) {
      this.addWait(thread, s.lastCmd);
    }
    thread.blocked = thread.waitRemaining > 0;
    return thread.blocked;
  }

  private addWait(thread: HostThreadState, cmd: CmdSlot): void {
    if (cmd >= 0 && !this.cmds.signalled(cmd)) {
      this.cmds.addWaiter(cmd, -1 - thread.id);
      thread.waitRemaining++;
    }
  }

  /** Handles the event just popped from the heap; stale copy and wave events (rescheduled since) are skipped. */
  dispatch(event: EventHeap): void {
    const c = this.cmds;
    switch (event.type) {
      case EventType.HostResume:
        this.resumeThread(this.threads[event.target]!);
        return;
      case EventType.Arrive: {
        const cmd = event.target;
        c.set(cmd, CmdState.Arrived);
        this.tryReady(cmd);
        return;
      }
      case EventType.WaveEnd: {
        const wave = event.target;
        if (this.waves.version[wave] === event.version) {
          const cmd = this.waves.cmd[wave]!;
          this.devices[this.streams[c.stream[cmd]!]!.device]!.waveEnded(wave);
        }
        return;
      }
      case EventType.CopyEnd: {
        const cmd = event.target;
        if ((c.state[cmd]! & CmdState.Done) === 0 && c.version[cmd] === event.version) {
          this.devices[this.streams[c.stream[cmd]!]!.device]!.copyEnded(cmd);
        }
        return;
      }
      case EventType.MarkerEnd:
        this.finished(event.target);
        return;
    }
  }
}
