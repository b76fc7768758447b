import { OpKind } from '@streamscope/trace';
import type { CmdSlot, CommandStore } from './command-store.ts';

/** Kernels issued back-to-back on Fermi: their completion signals wait for all of them. */
interface KernelGroup {
  readonly members: CmdSlot[];
  done: number;
  closed: boolean;
}

/**
 * Fermi's delayed kernel signal: kernels issued back to back on a device form a group, and no
 * member signals before all have finished and the group is closed (by any other issue, by a
 * kernel on a member's stream or waiting for a member, or by the end of a host thread).
 */
export class KernelGroups {
  /** Per device, the open group's id, or -1. */
  private readonly open: number[];
  /** Groups by id (`CommandStore.group`); ids are reused once a group has signalled. */
  private readonly groups: (KernelGroup | undefined)[] = [];
  private readonly freeIds: number[] = [];

  constructor(
    devices: number,
    private readonly cmds: CommandStore,
    private readonly signal: (cmd: CmdSlot) => void,
  ) {
    this.open = new Array<number>(devices).fill(-1);
  }

  /** `cmd` is being issued on `device`: it joins the open group, or closes it. */
  onIssue(cmd: CmdSlot, device: number): void {
    const c = this.cmds;
    if (c.opKind[cmd] !== OpKind.Kernel) {
      this.close(device);
      return;
    }
    const open = this.open[device]!;
    if (
      open >= 0 &&
      this.groups[open]!.members.some((m) => c.stream[m] === c.stream[cmd] || c.isWaiting(m, cmd))
    ) {
      this.close(device);
    }
    let id = this.open[device]!;
    if (id < 0) {
      id = this.freeIds.pop() ?? this.groups.length;
      this.groups[id] = { members: [], done: 0, closed: false };
      this.open[device] = id;
    }
    this.groups[id]!.members.push(cmd);
    c.group[cmd] = id;
  }

  /** Ends the run of back-to-back kernels on `device`; if all have finished, they signal now. */
  close(device: number): void {
    const id = this.open[device]!;
    if (id < 0) {
      return;
    }
    this.open[device] = -1;
    const group = this.groups[id]!;
    group.closed = true;
    if (group.done === group.members.length) {
      this.signalAll(id);
    }
  }

  closeAll(): void {
    for (let d = 0; d < this.open.length; d++) {
      this.close(d);
    }
  }

  /** A member of group `id` finished; the group signals once all have and it is closed. */
  finished(id: number): void {
    const group = this.groups[id]!;
    group.done++;
    if (group.closed && group.done === group.members.length) {
      this.signalAll(id);
    }
  }

  private signalAll(id: number): void {
    const group = this.groups[id]!;
    this.groups[id] = undefined;
    this.freeIds.push(id);
    for (const m of group.members) {
      this.signal(m);
    }
  }
}
