import type { CmdSlot } from './command-store.ts';
import { grown } from './command-store.ts';

/** A wave's slot in the WaveStore. */
export type WaveSlot = number;

/**
 * Resident waves (one batch of blocks of a kernel, until it ends) as typed columns, slots
 * reused once a wave has ended. A wave's WaveEnd event carries the version it was scheduled
 * with; versions come from one counter, so an event left behind by a rescheduled wave never
 * matches whatever uses its slot later.
 */
export class WaveStore {
  cmd = new Int32Array(64);
  blocks = new Int32Array(64);
  warps = new Int32Array(64);
  /** Work kernels: iterations per thread left, progress rate and when it was last updated. */
  iterationsLeft = new Float64Array(64);
  ratePerNs = new Float64Array(64);
  updatedNs = new Float64Array(64);
  /** Work waves: how many times more blocks its busiest SM holds than an even spread gives. */
  crowding = new Float64Array(64);
  /** SMs its blocks landed on (shared-SM waves). */
  sms = new Int32Array(64);
  version = new Float64Array(64);
  private readonly freeSlots: number[] = [];
  private used = 0;
  private lastVersion = 0;

  alloc(
    cmd: CmdSlot,
    blocks: number,
    warps: number,
    iterationsLeft: number,
    updatedNs: number,
  ): WaveSlot {
    let w = this.freeSlots.pop();
    if (w === undefined) {
      if (this.used === this.cmd.length) {
        const size = this.used * 2;
        this.cmd = grown(this.cmd, size);
        this.blocks = grown(this.blocks, size);
        this.warps = grown(this.warps, size);
        this.iterationsLeft = grown(this.iterationsLeft, size);
        this.ratePerNs = grown(this.ratePerNs, size);
        this.updatedNs = grown(this.updatedNs, size);
        this.crowding = grown(this.crowding, size);
        this.sms = grown(this.sms, size);
        this.version = grown(this.version, size);
      }
      w = this.used++;
    }
    this.cmd[w] = cmd;
    this.blocks[w] = blocks;
    this.warps[w] = warps;
    this.iterationsLeft[w] = iterationsLeft;
    this.ratePerNs[w] = 0;
    this.updatedNs[w] = updatedNs;
    this.crowding[w] = 1;
    this.sms[w] = 0;
    this.version[w] = 0;
    return w;
  }

  /** A new version for wave `w`, newer than any before (its earlier events go stale). */
  bump(w: WaveSlot): number {
    const v = ++this.lastVersion;
    this.version[w] = v;
    return v;
  }

  free(w: WaveSlot): void {
    this.freeSlots.push(w);
  }
}
