import type { CmdSlot, CommandStore } from './command-store.ts';
import { OpKind } from '@streamscope/trace';
import { CmdKind, CmdState, CopyDir } from './command-store.ts';
import { CopyEngines } from './copy-engines.ts';
import { SmLedger } from './sm-ledger.ts';
import type { EventHeap } from './event-heap.ts';
import { EventType } from './event-heap.ts';
import type { SimStream } from './model.ts';
import { SlotQueue, removeInOrder } from './model.ts';
import type { DeviceProfile } from './profile.ts';
import type { WaveSlot } from './wave-store.ts';
import type { WaveStore } from './wave-store.ts';
import { blockNsOf, preemptedKernel } from './preemption.ts';
import { HoldWaves, blocksAtLevel, holdLevelsOf } from './crowding.ts';

/** What the engine needs from the simulation around it. */
export interface EngineHost {
  readonly nowNs: number;
  readonly heap: EventHeap;
  readonly cmds: CommandStore;
  /** Waves of every device (wave slots are unique over the run's devices). */
  readonly waves: WaveStore;
  /** By plan stream id. */
  readonly streams: readonly (SimStream | undefined)[];
  /** A command finished executing at `nowNs`. */
  finished(cmd: CmdSlot): void;
}

/**
 * One GPU: hardware queues in front of the copy engines and the SMs. Commands enter a queue in
 * issue order; only a queue's head may be dispatched, once it is ready (its stream's turn and
 * its dependencies met) and its engine has room, so a blocked head holds back everything
 * behind it, whatever stream that is in.
 */
export class DeviceEngine {
  readonly queues: SlotQueue[] = [];
  private readonly waves: WaveStore;
  private readonly copies: CopyEngines;
  private readonly workWaves: WaveSlot[] = [];
  private freeThreads: number;
  private freeBlocks: number;
  private freeSmem: number;
  /** Warps of resident kernels on shared SMs (not those holding an SM whole). */
  private residentWarps = 0;
  /** SMs held by collectives and SMs other blocks landed on. */
  private readonly sms: SmLedger;
  private residentKernels = 0;
  /** Kernels with blocks on the SMs. */
  private readonly resident: CmdSlot[] = [];
  private readonly candidates: CmdSlot[] = [];
  /** Scratch of dispatchCrowded. */
  private readonly holds = new HoldWaves();
  /** Bit q: queue q (of the first 32) has a ready head. More queues are scanned one by one. */
  private readyHeads = 0;
  /** Fermi engine queues, by CopyDir: 0 compute, then copy queues. */
  private readonly copyQueueOf: readonly number[];
  /** Block scheduling order: higher priority (numerically lower) first, then issue order. */
  private readonly byPriorityThenIssue: (a: CmdSlot, b: CmdSlot) => number;

  constructor(
    readonly id: number,
    readonly profile: DeviceProfile,
    private readonly host: EngineHost,
  ) {
    const d = profile.device;
    this.waves = host.waves;
    const c = host.cmds;
    const streams = host.streams;
    this.byPriorityThenIssue = (a, b) =>
      streams[c.stream[a]!]!.priority - streams[c.stream[b]!]!.priority || c.seq[a]! - c.seq[b]!;
    this.freeThreads = d.smCount * d.maxThreadsPerSm;
    this.freeBlocks = d.smCount * d.maxBlocksPerSm;
    this.freeSmem = d.smCount * d.sharedMemPerSmBytes;
    this.sms = new SmLedger(d.smCount);
    this.copies = new CopyEngines(profile, host);
    const queueOf: number[] = [];
    if (profile.hwQueues <= 1) {
      // One compute queue, and one copy queue per direction when there are two engines.
      const split = profile.copyEngines.length >= 2;
      this.queues.push(new SlotQueue(), new SlotQueue());
      if (split) {
        this.queues.push(new SlotQueue());
      }
      queueOf[CopyDir.HtoD] = 1;
      queueOf[CopyDir.DtoH] = split ? 2 : 1;
      queueOf[CopyDir.Any] = 1;
      queueOf[CopyDir.PtoP] = split ? 2 : 1;
    } else {
      const n = Math.max(1, Math.min(profile.hwQueues, profile.connections));
      for (let i = 0; i < n; i++) {
        this.queues.push(new SlotQueue());
      }
      queueOf.push(0, 0, 0, 0);
    }
    this.copyQueueOf = queueOf;
  }

  /** Puts an issued compute or copy command in its hardware queue (which retains it). */
  enqueue(cmd: CmdSlot, stream: SimStream): void {
    const c = this.host.cmds;
    let q: number;
    if (this.profile.hwQueues <= 1) {
      q = c.kind[cmd] === CmdKind.Copy ? this.copyQueueOf[c.direction[cmd]!]! : 0;
    } else {
      q = stream.hwQueue % this.queues.length;
    }
    c.hwQueue[cmd] = q;
    c.retain(cmd);
    const queue = this.queues[q]!;
    queue.push(cmd);
    if (queue.size === 1) {
      this.headChanged(q);
    }
  }

  /** Its command became ready: if it heads its hardware queue, the queue can dispatch. */
  readyChanged(cmd: CmdSlot): void {
    const q = this.host.cmds.hwQueue[cmd]!;
    if (q >= 0 && this.queues[q]!.front() === cmd) {
      this.headChanged(q);
    }
  }

  /** Notes whether queue `q` now has a ready head (what `pump` looks at). */
  private headChanged(q: number): void {
    if (q >= 32) {
      return;
    }
    const head = this.queues[q]!.front();
    if (head >= 0 && (this.host.cmds.state[head]! & CmdState.Ready) !== 0) {
      this.readyHeads |= 1 << q;
    } else {
      this.readyHeads &= ~(1 << q);
    }
  }

  private popQueue(q: number): void {
    this.host.cmds.release(this.queues[q]!.pop());
    this.headChanged(q);
  }

  /** Dispatches whatever can start now; call after anything that may free a head or an engine. */
  pump(): void {
    const c = this.host.cmds;
    const manyQueues = this.queues.length > 32;
    let progressed = true;
    while (progressed) {
      progressed = false;
      const candidates = this.candidates;
      // Emptied by pops: setting length is a runtime call, and this runs for every event.
      while (candidates.length > 0) {
        candidates.pop();
      }
      if (manyQueues) {
        for (let q = 0; q < this.queues.length; q++) {
          this.scanQueue(q);
        }
      } else {
        // Only queues whose head is ready, in queue order (a copy engine goes to the first).
        for (let mask = this.readyHeads; mask !== 0; mask &= mask - 1) {
          this.scanQueue(31 - Math.clz32(mask & -mask));
        }
      }
      if (candidates.length === 0) {
        return;
      }
      if (candidates.length > 1) {
        candidates.sort(this.byPriorityThenIssue);
      }
      let dispatched = false;
      for (let k = 0; k < candidates.length; k++) {
        const cmd = candidates[k]!;
        if (this.dispatchBlocks(cmd)) {
          dispatched = true;
          if (c.blocksLeft[cmd] === 0) {
            this.popQueue(c.hwQueue[cmd]!);
            progressed = true;
          }
        }
      }
      if (dispatched) {
        this.reflowWork();
      }
    }
  }

  /**
   * Starts the ready copies at the head of queue `q` while an engine is free, drops heads whose
   * blocks are all dispatched, and leaves a ready compute head in `candidates`.
   */
  private scanQueue(q: number): void {
    const c = this.host.cmds;
    const queue = this.queues[q]!;
    for (;;) {
      const head = queue.front();
      if (head < 0 || (c.state[head]! & CmdState.Ready) === 0) {
        return;
      }
      if (c.kind[head] === CmdKind.Copy) {
        if (c.startNs[head]! < 0 && !this.copies.start(head)) {
          return;
        }
        this.popQueue(q);
        continue;
      }
      if (c.blocksLeft[head] === 0) {
        this.popQueue(q);
        continue;
      }
      this.candidates.push(head);
      return;
    }
  }

  private dispatchBlocks(cmd: CmdSlot): boolean {
    const c = this.host.cmds;
    if (c.runningWaves[cmd] === 0 && this.residentKernels >= this.profile.maxConcurrentKernels) {
      return false;
    }
    const threadsPerBlock = c.threadsPerBlock[cmd]!;
    const smemPerBlock = c.smemPerBlock[cmd]!;
    let fit = Math.min(
      c.blocksLeft[cmd]!,
      Math.floor(this.freeThreads / threadsPerBlock),
      this.freeBlocks,
    );
    if (smemPerBlock > 0) {
      fit = Math.min(fit, Math.floor(this.freeSmem / smemPerBlock));
    }
    if (c.holdsSm[cmd] === 1) {
      fit = Math.min(fit, this.sms.emptySms());
    }
    const first = c.startNs[cmd]! < 0;
    let notBeforeNs = c.notBeforeNs[cmd]!;
    // Warps already on an SM where its blocks land (GPU-wide, spread evenly).
    let landingPerSm = this.residentWarps / this.profile.device.smCount;
    if (fit <= 0) {
      // A collective waits for empty SMs whatever its stream's priority.
      const preempted =
        first && c.holdsSm[cmd] === 0
          ? preemptedKernel(cmd, this.resident, this.host, this.profile)
          : -1;
      if (preempted < 0) {
        return false;
      }
      // It takes the room of lower-priority blocks as they end, on average priorityWaitShare
      // of their duration after it was ready: one block per SM, each landing where one of
      // theirs left (the room counted against them until more of theirs end).
      fit = Math.min(c.blocksLeft[cmd]!, this.profile.device.smCount);
      notBeforeNs =
        Math.max(this.host.nowNs, notBeforeNs) +
        this.profile.priorityWaitShare * blockNsOf(preempted, c, this.profile);
      landingPerSm = this.residentWarps / this.profile.device.smCount - c.warpsPerBlock[preempted]!;
    }
    const now = first ? Math.max(this.host.nowNs, notBeforeNs) : this.host.nowNs;
    if (first) {
      c.startNs[cmd] = now;
    }
    if (c.runningWaves[cmd] === 0) {
      this.residentKernels++;
      this.resident.push(cmd);
    }
    c.blocksLeft[cmd] = c.blocksLeft[cmd]! - fit;
    this.freeThreads -= fit * threadsPerBlock;
    this.freeBlocks -= fit;
    this.freeSmem -= fit * smemPerBlock;
    const warpsPerBlock = c.warpsPerBlock[cmd]!;
    if (c.holdsSm[cmd] === 1) {
      // Its own SMs: no crowding, nothing shared; blocks that start meanwhile double up.
      this.sms.hold(fit);
      this.timedWave(cmd, fit, now + c.blockNs[cmd]!, 0);
      return true;
    }
    this.residentWarps += fit * warpsPerBlock;
    const sms = this.sms.land(fit);
    const iterations = c.iterations[cmd]!;
    if (iterations > 0) {
      // Only work waves track progress; a timed wave keeps 0 there.
      c.runningWaves[cmd]!++;
      const wave = this.waves.alloc(cmd, fit, fit * warpsPerBlock, iterations, now);
      this.waves.crowding[wave] = this.sms.crowding(
        fit,
        warpsPerBlock,
        this.residentWarps,
        this.profile.workSaturationWarpsPerSm,
      );
      this.waves.sms[wave] = sms;
      this.workWaves.push(wave);
      this.waves.ratePerNs[wave] = -1; // scheduled by reflowWork
    } else if (this.profile.crowdedStartNsPerWarp > 0 && c.opKind[cmd] === OpKind.Kernel) {
      this.dispatchCrowded(cmd, fit, landingPerSm, now, sms);
    } else {
      this.timedWave(cmd, fit, now + c.blockNs[cmd]!, sms);
    }
    return true;
  }

  /** A wave of timed blocks ending at `endNs`; `sms`: the SMs it gives back then. */
  private timedWave(cmd: CmdSlot, blocks: number, endNs: number, sms: number): void {
    const c = this.host.cmds;
    c.runningWaves[cmd]!++;
    const warps = c.holdsSm[cmd] === 1 ? 0 : blocks * c.warpsPerBlock[cmd]!;
    const wave = this.waves.alloc(cmd, blocks, warps, 0, 0);
    this.waves.sms[wave] = sms;
    this.host.heap.push(endNs, EventType.WaveEnd, wave);
  }

  /**
   * Timed blocks are held on a crowded SM. Blocks spread evenly over the SMs: the k-th new block
   * of an SM lands beside the warps already there (`landingPerSm`) and the k − 1 new blocks
   * before it, and its rank (one block per SM) is held up to (warps − crowdedStartWarps) ×
   * crowdedStartNsPerWarp past its work, spread over the hold levels (crowding.ts). Blocks held
   * alike form a wave; the SMs the blocks `landed` on are given back with the wave that ends last.
   */
  private dispatchCrowded(
    cmd: CmdSlot,
    fit: number,
    landingPerSm: number,
    now: number,
    landed: number,
  ): void {
    const c = this.host.cmds;
    const p = this.profile;
    const sms = p.device.smCount;
    const warpsPerBlock = c.warpsPerBlock[cmd]!;
    const blockNs = c.blockNs[cmd]!;
    if (fit <= sms && landingPerSm <= p.crowdedStartWarps) {
      this.timedWave(cmd, fit, now + blockNs, landed); // one rank, not crowded
      return;
    }
    const holds = this.holds;
    holds.clear();
    let left = fit;
    for (let rank = 0; left > 0; rank++) {
      const blocks = Math.min(left, sms);
      left -= blocks;
      const landing = landingPerSm + rank * warpsPerBlock;
      const longestNs = Math.max(0, landing - p.crowdedStartWarps) * p.crowdedStartNsPerWarp;
      if (longestNs === 0) {
        holds.add(0, blocks);
        continue;
      }
      const levels = holdLevelsOf(blocks);
      for (let k = 0; k < levels.length; k++) {
        holds.add(levels[k]! * longestNs, blocksAtLevel(blocks, k, levels.length));
      }
    }
    const last = holds.lastIndex();
    for (let i = 0; i <= last; i++) {
      this.timedWave(
        cmd,
        holds.blocks[i]!,
        now + holds.holdNs[i]! + blockNs,
        i === last ? landed : 0,
      );
    }
  }

  /** A copy's last byte moved: free its engine, then dispatch what can start. */
  copyEnded(cmd: CmdSlot): void {
    this.copies.end(cmd);
    this.pump();
  }

  /** A wave's blocks finished: free their room; the kernel ends with its last wave. */
  waveEnded(wave: WaveSlot): void {
    const c = this.host.cmds;
    const waves = this.waves;
    const cmd = waves.cmd[wave]!;
    if (c.iterations[cmd]! > 0) {
      if (!removeInOrder(this.workWaves, wave)) {
        return;
      }
    }
    const blocks = waves.blocks[wave]!;
    c.runningWaves[cmd]!--;
    this.freeThreads += blocks * c.threadsPerBlock[cmd]!;
    this.freeBlocks += blocks;
    this.freeSmem += blocks * c.smemPerBlock[cmd]!;
    this.residentWarps -= waves.warps[wave]!;
    if (c.holdsSm[cmd] === 1) {
      this.sms.release(blocks);
    }
    this.sms.leave(waves.sms[wave]!);
    waves.free(wave);
    if (c.runningWaves[cmd] === 0) {
      this.residentKernels--;
      removeInOrder(this.resident, cmd);
      if (c.blocksLeft[cmd] === 0) {
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
    const w = this.waves;
    const perSm = this.residentWarps / p.device.smCount;
    const evenRate =
      p.workIterationsPerNs * Math.min(1, p.workSaturationWarpsPerSm / Math.max(perSm, 1e-9));
    for (const wave of this.workWaves) {
      const rate = evenRate / w.crowding[wave]!;
      if (w.ratePerNs[wave] === rate) {
        continue;
      }
      if (w.ratePerNs[wave]! > 0 && now > w.updatedNs[wave]!) {
        w.iterationsLeft[wave] = Math.max(
          0,
          w.iterationsLeft[wave]! - (now - w.updatedNs[wave]!) * w.ratePerNs[wave]!,
        );
      }
      w.updatedNs[wave] = Math.max(now, w.updatedNs[wave]!);
      w.ratePerNs[wave] = rate;
      const version = w.bump(wave);
      this.host.heap.push(
        w.updatedNs[wave] + w.iterationsLeft[wave]! / rate,
        EventType.WaveEnd,
        wave,
        version,
      );
    }
  }
}
