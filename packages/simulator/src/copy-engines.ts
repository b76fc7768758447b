import type { CmdSlot } from './command-store.ts';
import { CopyDir } from './command-store.ts';
import type { EngineHost } from './device-engine.ts';
import { EventType } from './event-heap.ts';
import { removeInOrder } from './model.ts';
import type { CopyEngineRole, DeviceProfile } from './profile.ts';

const roleDir: Record<CopyEngineRole, CopyDir> = {
  htod: CopyDir.HtoD,
  dtoh: CopyDir.DtoH,
  any: CopyDir.Any,
  peer: CopyDir.PtoP,
};

/**
 * The copy engines of one GPU and the copies running on them. Each engine serves one
 * direction or any; copies in flight share their direction's bandwidth, and a copy's end is
 * rescheduled (a new CopyEnd version) whenever its rate changes.
 */
export class CopyEngines {
  /** The copy running on each engine, -1 when idle. */
  private readonly engines: Int32Array;
  /** When each engine's last copy ended, ns (the next one starts copyEngineGapNs after). */
  private readonly freeSinceNs: Float64Array;
  private readonly engineGapNs: number;
  private readonly engineRoles: readonly CopyDir[];
  /** Running copies in the order they started (their CopyEnd events are pushed in this order). */
  private readonly activeCopies: CmdSlot[] = [];
  /** Share of its rate each direction keeps while both move data: HtoD, DtoH. */
  private readonly duplexHtod: number;
  private readonly duplexDtoh: number;

  constructor(
    profile: DeviceProfile,
    private readonly host: EngineHost,
  ) {
    this.engines = new Int32Array(profile.copyEngines.length).fill(-1);
    this.freeSinceNs = new Float64Array(profile.copyEngines.length).fill(-Infinity);
    this.engineGapNs = profile.copyEngineGapNs;
    this.engineRoles = profile.copyEngines.map((r) => roleDir[r]);
    this.duplexHtod = profile.duplexFactor;
    this.duplexDtoh = profile.duplexFactorDtoh;
  }

  /**
   * Starts `cmd` on a free engine of its direction, else one that takes any (a copy between GPUs
   * also on a peer engine); false if none is free.
   */
  start(cmd: CmdSlot): boolean {
    const c = this.host.cmds;
    const roles = this.engineRoles;
    const dir = c.direction[cmd]!;
    let engine = -1;
    for (let e = 0; e < roles.length; e++) {
      if (this.engines[e] === -1 && roles[e] === dir) {
        engine = e;
        break;
      }
    }
    if (engine < 0) {
      for (let e = 0; e < roles.length; e++) {
        if (this.engines[e] === -1 && roles[e] === CopyDir.Any) {
          engine = e;
          break;
        }
      }
    }
    if (engine < 0) {
      return false;
    }
    this.engines[engine] = cmd;
    c.engine[cmd] = engine;
    const startNs = Math.max(
      this.host.nowNs,
      c.notBeforeNs[cmd]!,
      this.freeSinceNs[engine]! + this.engineGapNs,
    );
    c.startNs[cmd] = startNs;
    c.updatedNs[cmd] = startNs;
    this.activeCopies.push(cmd);
    this.reflowCopies();
    return true;
  }

  /** A copy's last byte moved: its engine is free, the copy finishes, the others speed up. */
  end(cmd: CmdSlot): void {
    removeInOrder(this.activeCopies, cmd);
    const engine = this.host.cmds.engine[cmd]!;
    this.engines[engine] = -1;
    this.freeSinceNs[engine] = this.host.nowNs;
    this.host.finished(cmd);
    this.reflowCopies();
  }

  /**
   * Copies in one direction share its bandwidth; while both directions move data each keeps
   * its duplex share of it (`duplexFactor` to the device, `duplexFactorDtoh` to the host).
   * Rates change only when a copy starts or ends.
   */
  private reflowCopies(): void {
    const c = this.host.cmds;
    const now = this.host.nowNs;
    const active = this.activeCopies;
    let htod = 0;
    let dtoh = 0;
    let other = 0;
    for (let k = 0; k < active.length; k++) {
      const dir = c.direction[active[k]!];
      if (dir === CopyDir.HtoD) {
        htod++;
      } else if (dir === CopyDir.DtoH) {
        dtoh++;
      } else {
        other++;
      }
    }
    const both = htod > 0 && dtoh > 0;
    for (let k = 0; k < active.length; k++) {
      const cmd = active[k]!;
      const dir = c.direction[cmd];
      const share = dir === CopyDir.HtoD ? htod : dir === CopyDir.DtoH ? dtoh : other;
      const duplex = !both
        ? 1
        : dir === CopyDir.HtoD
          ? this.duplexHtod
          : dir === CopyDir.DtoH
            ? this.duplexDtoh
            : 1;
      const rate = (c.baseBytesPerNs[cmd]! * duplex) / share;
      const oldRate = c.rateBytesPerNs[cmd]!;
      if (rate === oldRate) {
        continue;
      }
      const updatedNs = c.updatedNs[cmd]!;
      if (oldRate > 0 && now > updatedNs) {
        c.bytesLeft[cmd] = Math.max(0, c.bytesLeft[cmd]! - (now - updatedNs) * oldRate);
      }
      c.updatedNs[cmd] = Math.max(now, updatedNs);
      c.rateBytesPerNs[cmd] = rate;
      const version = c.newVersion(cmd);
      this.host.heap.push(
        c.updatedNs[cmd] + c.bytesLeft[cmd]! / rate,
        EventType.CopyEnd,
        cmd,
        version,
      );
    }
  }
}
