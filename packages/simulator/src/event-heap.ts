/** What an event does when its time comes. */
export const EventType = {
  HostResume: 0,
  Arrive: 1,
  WaveEnd: 2,
  CopyEnd: 3,
  MarkerEnd: 4,
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/**
 * A binary min-heap of events by (time, insertion order), so equal times run first-in
 * first-out. Stored as parallel typed arrays, not an object per event: a million-op run pushes
 * millions of events. The target is a number: a host thread id, a command slot or a wave
 * slot, by type. `pop` leaves the event in `type`, `target` and `version`.
 */
export class EventHeap {
  private times = new Float64Array(1024);
  private seqs = new Float64Array(1024);
  private types = new Uint8Array(1024);
  private versions = new Float64Array(1024);
  private targets = new Int32Array(1024);
  private n = 0;
  private nextSeq = 0;
  /** The last popped event. */
  timeNs = 0;
  type: EventType = 0;
  target = -1;
  version = 0;

  get size(): number {
    return this.n;
  }

  /** Time of the earliest event, or +Infinity when empty. */
  peekTimeNs(): number {
    return this.n > 0 ? this.times[0]! : Infinity;
  }

  /** Times are rounded to whole ns, so the clock and the trace agree exactly. */
  push(atNs: number, type: EventType, target: number, version = 0): void {
    if (this.n === this.times.length) {
      this.grow();
    }
    const timeNs = Math.round(atNs);
    const seq = this.nextSeq++;
    const times = this.times;
    const seqs = this.seqs;
    let i = this.n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt < timeNs || (pt === timeNs && seqs[parent]! < seq)) {
        break;
      }
      this.move(parent, i);
      i = parent;
    }
    times[i] = timeNs;
    seqs[i] = seq;
    this.types[i] = type;
    this.versions[i] = version;
    this.targets[i] = target;
  }

  /** Removes the earliest event into `timeNs`, `type`, `target`, `version`; false when empty. */
  pop(): boolean {
    if (this.n === 0) {
      return false;
    }
    this.timeNs = this.times[0]!;
    this.type = this.types[0]! as EventType;
    this.target = this.targets[0]!;
    this.version = this.versions[0]!;
    const last = --this.n;
    if (last > 0) {
      const times = this.times;
      const seqs = this.seqs;
      const t = times[last]!;
      const s = seqs[last]!;
      const type = this.types[last]!;
      const version = this.versions[last]!;
      const target = this.targets[last]!;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= last) {
          break;
        }
        const right = left + 1;
        let child = left;
        if (
          right < last &&
          (times[right]! < times[left]! ||
            (times[right] === times[left] && seqs[right]! < seqs[left]!))
        ) {
          child = right;
        }
        const ct = times[child]!;
        if (t < ct || (t === ct && s < seqs[child]!)) {
          break;
        }
        this.move(child, i);
        i = child;
      }
      times[i] = t;
      seqs[i] = s;
      this.types[i] = type;
      this.versions[i] = version;
      this.targets[i] = target;
    }
    return true;
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from]!;
    this.seqs[to] = this.seqs[from]!;
    this.types[to] = this.types[from]!;
    this.versions[to] = this.versions[from]!;
    this.targets[to] = this.targets[from]!;
  }

  private grow(): void {
    const size = this.times.length * 2;
    const times = new Float64Array(size);
    times.set(this.times);
    this.times = times;
    const seqs = new Float64Array(size);
    seqs.set(this.seqs);
    this.seqs = seqs;
    const types = new Uint8Array(size);
    types.set(this.types);
    this.types = types;
    const versions = new Float64Array(size);
    versions.set(this.versions);
    this.versions = versions;
    const targets = new Int32Array(size);
    targets.set(this.targets);
    this.targets = targets;
  }
}
