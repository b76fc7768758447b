import type { PlanStream } from '@streamscope/workload';
import type { CmdSlot } from './command-store.ts';

/** A first-in first-out queue of command slots in a ring of Int32 (a stream, a hardware queue). */
export class SlotQueue {
  private items = new Int32Array(16);
  private head = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The first slot, or -1 when empty. */
  front(): CmdSlot {
    return this.count === 0 ? -1 : this.items[this.head]!;
  }

  push(slot: CmdSlot): void {
    const items = this.items;
    if (this.count === items.length) {
      // Unroll the ring into a buffer twice the size.
      const next = new Int32Array(items.length * 2);
      next.set(items.subarray(this.head));
      next.set(items.subarray(0, this.head), items.length - this.head);
      this.items = next;
      this.head = 0;
    }
    this.items[(this.head + this.count) & (this.items.length - 1)] = slot;
    this.count++;
  }

  /** Removes the first slot and returns it. */
  pop(): CmdSlot {
    const slot = this.items[this.head]!;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count--;
    return slot;
  }
}

export class SimStream {
  readonly fifo = new SlotQueue();
  /** The last command issued to it (retained), -1 before the first. */
  lastCmd: CmdSlot = -1;
  lastSignalNs = -Infinity;
  /** Engine of its last kernel or copy: 0 none yet, 1 the SMs, 2 a copy engine. */
  lastEngine = 0;
  /** A stream wait was issued since its last kernel or copy (the next one pays the wait gap). */
  afterWait = false;
  readonly isLegacy: boolean;
  /** Blocking streams (created blocking, or per-thread default) synchronize with the legacy stream. */
  readonly isBlocking: boolean;

  constructor(
    readonly plan: PlanStream,
    readonly track: number,
    readonly device: number,
    readonly priority: number,
    readonly hwQueue: number,
  ) {
    this.isLegacy = plan.type === 'legacy-default';
    this.isBlocking = plan.type === 'blocking' || plan.type === 'per-thread-default';
  }
}

/** Removes `item` from `list`, keeping the order of the rest (splice would allocate). */
export function removeInOrder(list: number[], item: number): boolean {
  const i = list.indexOf(item);
  if (i < 0) {
    return false;
  }
  for (let k = i + 1; k < list.length; k++) {
    list[k - 1] = list[k]!;
  }
  list.pop();
  return true;
}
