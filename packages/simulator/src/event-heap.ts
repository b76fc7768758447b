/** What an event does when its time comes. */
export const EventType = {
  HostResume: 0,
  Arrive: 1,
  WaveEnd: 2,
  CopyEnd: 3,
  MarkerEnd: 4,
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

export interface SimEvent {
  timeNs: number;
  seq: number;
  type: EventType;
  target: unknown;
  /** Stale when it differs from the target's version (rescheduled copies and waves). */
  version: number;
}

/** A binary min-heap of events by (time, insertion order): equal times run first-in first-out. */
export class EventHeap {
  private readonly items: SimEvent[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.items.length;
  }

  /** Time of the earliest event, or +Infinity when empty. */
  peekTimeNs(): number {
    return this.items[0]?.timeNs ?? Infinity;
  }

  /** Times are rounded to whole ns, so the clock and the trace agree exactly. */
  push(atNs: number, type: EventType, target: unknown, version = 0): void {
    const timeNs = Math.round(atNs);
    const items = this.items;
    const event: SimEvent = { timeNs, seq: this.nextSeq++, type, target, version };
    let i = items.length;
    items.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (p.timeNs < timeNs || (p.timeNs === timeNs && p.seq < event.seq)) {
        break;
      }
      items[i] = p;
      i = parent;
    }
    items[i] = event;
  }

  pop(): SimEvent | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) {
      return top;
    }
    const n = items.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) {
        break;
      }
      const right = left + 1;
      let child = left;
      const l = items[left]!;
      if (right < n) {
        const r = items[right]!;
        if (r.timeNs < l.timeNs || (r.timeNs === l.timeNs && r.seq < l.seq)) {
          child = right;
        }
      }
      const c = items[child]!;
      if (last.timeNs < c.timeNs || (last.timeNs === c.timeNs && last.seq < c.seq)) {
        break;
      }
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
