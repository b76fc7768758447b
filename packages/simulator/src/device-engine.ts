import type { EventHeap } from './event-heap.ts';
import { EventType } from './event-heap.ts';
import type { Cmd, Wave } from './model.ts';
import { CmdKind, HwQueue } from './model.ts';
import type { CopyEngineRole, DeviceProfile } from './profile.ts';

/** What the engine needs from the simulation around it. */
export interface EngineHost {
  readonly nowNs: number;
  readonly heap: EventHeap;
  /** A command finished executing at `nowNs`. */
  finished(cmd: Cmd): void;
}

/** Block scheduling order: higher priority (numerically lower) first, then issue order. */
function byPriorityThenIssue(a: Cmd, b: Cmd): number {
  return a.stream.priority - b.stream.priority || a.seq - b.seq;
}

/**
 * One GPU: hardware queues in front of the copy engines and the SMs. Commands enter a queue in
 * issue order; only a queue's head may be dispatched, once it is ready (its stream's turn and
 * its dependencies met) and its engine has room, so a blocked head holds back everything
 * behind it, whatever stream that is in.
 */
export class DeviceEngine {
  readonly queues: HwQueue[] = [];
  private readonly engines: (Cmd | null)[];
  private readonly activeCopies: Cmd[] = [];
  private readonly workWaves: Wave[] = [];
  private freeThreads: number;
  private freeBlocks: number;
  private freeSmem: number;
  private residentWarps = 0;
  private residentKernels = 0;
  private readonly candidates: Cmd[] = [];
  /** Fermi engine queues: 0 compute, then copy queues. */
  private readonly copyQueueOf: Record<CopyEngineRole | 'ptop', number>;

  constructor(
    readonly id: number,
    readonly profile: DeviceProfile,
    private readonly host: EngineHost,
  ) {
    const d = profile.device;
    this.freeThreads = d.smCount * d.maxThreadsPerSm;
    this.freeBlocks = d.smCount * d.maxBlocksPerSm;
    this.freeSmem = d.smCount * d.sharedMemPerSmBytes;
    this.engines = profile.copyEngines.map(() => null);
    if (profile.hwQueues <= 1) {
      // One compute queue, and one copy queue per direction when there are two engines.
      const split = profile.copyEngines.length >= 2;
      this.queues.push(new HwQueue(), new HwQueue());
      if (split) {
        this.queues.push(new HwQueue());
      }
      this.copyQueueOf = { htod: 1, dtoh: split ? 2 : 1, any: 1, ptop: split ? 2 : 1 };
    } else {
      const n = Math.max(1, Math.min(profile.hwQueues, profile.connections));
      for (let i = 0; i < n; i++) {
        this.queues.push(new HwQueue());
      }
      this.copyQueueOf = { htod: 0, dtoh: 0, any: 0, ptop: 0 };
    }
  }

  /** Puts an issued compute or copy command in its hardware queue. */
  enqueue(cmd: Cmd): void {
    let q: number;
    if (this.profile.hwQueues <= 1) {
      q = cmd.kind === CmdKind.Copy ? this.copyQueueOf[cmd.direction] : 0;
    } else {
      q = cmd.stream.hwQueue % this.queues.length;
    }
    const queue = this.queues[q]!;
    cmd.hwQueue = queue;
    queue.push(cmd);
  }

  /** Dispatches whatever can start now; call after anything that may free a head or an engine. */
  pump(): void {
    let progressed = true;
    while (progressed) {
      progressed = false;
      const candidates = this.candidates;
      if (candidates.length > 0) {
        candidates.length = 0;
      }
      for (const queue of this.queues) {
        for (;;) {
          const head = queue.front();
          if (head === undefined || !head.ready) {
            break;
          }
          if (head.kind === CmdKind.Copy) {
            if (head.startNs < 0 && !this.startCopy(head)) {
              break;
            }
            queue.pop();
            continue;
          }
          if (head.blocksLeft === 0) {
            queue.pop();
            continue;
          }
          candidates.push(head);
          break;
        }
      }
      if (candidates.length === 0) {
        return;
      }
      if (candidates.length > 1) {
        candidates.sort(byPriorityThenIssue);
      }
      let dispatched = false;
      for (const cmd of candidates) {
        if (this.dispatchBlocks(cmd)) {
          dispatched = true;
          if (cmd.blocksLeft === 0) {
            cmd.hwQueue!.pop();
            progressed = true;
          }
        }
      }
      if (dispatched) {
        this.reflowWork();
      }
    }
  }

  private dispatchBlocks(cmd: Cmd): boolean {
    if (cmd.runningWaves === 0 && this.residentKernels >= this.profile.maxConcurrentKernels) {
      return false;
    }
    let fit = Math.min(
      cmd.blocksLeft,
      Math.floor(this.freeThreads / cmd.threadsPerBlock),
      this.freeBlocks,
    );
    if (cmd.smemPerBlock > 0) {
      fit = Math.min(fit, Math.floor(this.freeSmem / cmd.smemPerBlock));
    }
    if (fit <= 0) {
      return false;
    }
    const first = cmd.startNs < 0;
    const now = first ? Math.max(this.host.nowNs, cmd.notBeforeNs) : this.host.nowNs;
    if (first) {
      cmd.startNs = now;
    }
    if (cmd.runningWaves === 0) {
      this.residentKernels++;
    }
    cmd.blocksLeft -= fit;
    cmd.runningWaves++;
    this.freeThreads -= fit * cmd.threadsPerBlock;
    this.freeBlocks -= fit;
    this.freeSmem -= fit * cmd.smemPerBlock;
    const warps = fit * cmd.warpsPerBlock;
    this.residentWarps += warps;
    const wave: Wave = {
      cmd,
      blocks: fit,
      warps,
      iterationsLeft: cmd.iterations,
      ratePerNs: 0,
      // Only work waves track progress; a timed wave keeps 0 here (no boxed number per wave).
      updatedNs: cmd.iterations > 0 ? now : 0,
      version: 0,
    };
    if (cmd.iterations > 0) {
      this.workWaves.push(wave);
      wave.ratePerNs = -1; // scheduled by reflowWork
    } else {
      this.host.heap.push(now + cmd.blockNs, EventType.WaveEnd, wave);
    }
    return true;
  }

  /** A wave's blocks finished: free their room; the kernel ends with its last wave. */
  waveEnded(wave: Wave): void {
    if (wave.cmd.iterations > 0) {
      const i = this.workWaves.indexOf(wave);
      if (i < 0 || wave.version < 0) {
        return;
      }
      this.workWaves.splice(i, 1);
    }
    const cmd = wave.cmd;
    cmd.runningWaves--;
    this.freeThreads += wave.blocks * cmd.threadsPerBlock;
    this.freeBlocks += wave.blocks;
    this.freeSmem += wave.blocks * cmd.smemPerBlock;
    this.residentWarps -= wave.warps;
    if (cmd.runningWaves === 0) {
      this.residentKernels--;
      if (cmd.blocksLeft === 0) {
        this.host.finished(cmd);
      }
    }
    this.pump();
    this.reflowWork();
  }

  /**
   * Fixed-work blocks slow down once an SM holds more warps than it can issue for at full
   * speed: rate = workIterationsPerNs × min(1, saturation warps / resident warps per SM).
   */
  private reflowWork(): void {
    if (this.workWaves.length === 0) {
      return;
    }
    const now = this.host.nowNs;
    const p = this.profile;
    const perSm = this.residentWarps / p.device.smCount;
    const rate =
      p.workIterationsPerNs * Math.min(1, p.workSaturationWarpsPerSm / Math.max(perSm, 1e-9));
    for (const wave of this.workWaves) {
      if (wave.ratePerNs === rate) {
        continue;
      }
      if (wave.ratePerNs > 0 && now > wave.updatedNs) {
        wave.iterationsLeft = Math.max(
          0,
          wave.iterationsLeft - (now - wave.updatedNs) * wave.ratePerNs,
        );
      }
      wave.updatedNs = Math.max(now, wave.updatedNs);
      wave.ratePerNs = rate;
      wave.version++;
      this.host.heap.push(
        wave.updatedNs + wave.iterationsLeft / rate,
        EventType.WaveEnd,
        wave,
        wave.version,
      );
    }
  }

  private startCopy(cmd: Cmd): boolean {
    const roles = this.profile.copyEngines;
    let engine = -1;
    for (let e = 0; e < roles.length; e++) {
      if (this.engines[e] === null && roles[e] === cmd.direction) {
        engine = e;
        break;
      }
    }
    if (engine < 0) {
      for (let e = 0; e < roles.length; e++) {
        if (this.engines[e] === null && roles[e] === 'any') {
          engine = e;
          break;
        }
      }
    }
    if (engine < 0) {
      return false;
    }
    this.engines[engine] = cmd;
    cmd.engine = engine;
    cmd.startNs = Math.max(this.host.nowNs, cmd.notBeforeNs);
    cmd.updatedNs = cmd.startNs;
    this.activeCopies.push(cmd);
    this.reflowCopies();
    return true;
  }

  /** A copy's last byte moved: free its engine. */
  copyEnded(cmd: Cmd): void {
    const i = this.activeCopies.indexOf(cmd);
    if (i >= 0) {
      this.activeCopies.splice(i, 1);
    }
    this.engines[cmd.engine] = null;
    this.host.finished(cmd);
    this.reflowCopies();
    this.pump();
  }

  /**
   * Copies in one direction share its bandwidth; while both directions move data each keeps
   * `duplexFactor` of it. Rates change only when a copy starts or ends.
   */
  private reflowCopies(): void {
    const now = this.host.nowNs;
    let htod = 0;
    let dtoh = 0;
    let other = 0;
    for (const c of this.activeCopies) {
      if (c.direction === 'htod') {
        htod++;
      } else if (c.direction === 'dtoh') {
        dtoh++;
      } else {
        other++;
      }
    }
    const duplex = htod > 0 && dtoh > 0 ? this.profile.duplexFactor : 1;
    for (const c of this.activeCopies) {
      const share = c.direction === 'htod' ? htod : c.direction === 'dtoh' ? dtoh : other;
      const rate = (c.baseBytesPerNs * (c.direction === 'ptop' ? 1 : duplex)) / share;
      if (rate === c.rateBytesPerNs) {
        continue;
      }
      if (c.rateBytesPerNs > 0 && now > c.updatedNs) {
        c.bytesLeft = Math.max(0, c.bytesLeft - (now - c.updatedNs) * c.rateBytesPerNs);
      }
      c.updatedNs = Math.max(now, c.updatedNs);
      c.rateBytesPerNs = rate;
      c.version++;
      this.host.heap.push(c.updatedNs + c.bytesLeft / rate, EventType.CopyEnd, c, c.version);
    }
  }
}
