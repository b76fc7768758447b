/**
 * How a recorded run is repeated into a long one: the recording's idle start (process setup, a
 * first copy, then seconds of nothing before the training steps) is written once, and its busy
 * part is repeated back to back, as the steps of a long training run follow each other.
 */
export interface ReplicaPlan {
  /** Rows that start before this (ns, the recording's clock) are the idle start: written once. */
  readonly busyStartNs: number;
  /** What each replica's times move past the previous one's: the busy part's span plus 1 µs. */
  readonly strideNs: number;
}

/** The gap left between one replica's last end and the next one's first start. */
const replicaGapNs = 1000;

/**
 * The plan for rows timed by `intervals` (start and end ns; 0 where untimed). The busy part
 * starts after the longest stretch where nothing runs, when that stretch is longer than all
 * that follows it; otherwise the whole recording is busy and repeated.
 */
export function planReplicas(intervals: Iterable<readonly [number, number]>): ReplicaPlan {
  const timed: [number, number][] = [];
  for (const [startNs, endNs] of intervals) {
    if (startNs > 0) {
      timed.push([startNs, Math.max(startNs, endNs)]);
    }
  }
  if (timed.length === 0) {
    throw new Error('the template has no timed rows to repeat');
  }
  timed.sort((a, b) => a[0] - b[0]);
  const firstNs = timed[0]![0];
  let lastEndNs = timed[0]![1];
  let longestGapNs = 0;
  let afterGapNs = firstNs;
  for (const [startNs, endNs] of timed) {
    if (startNs - lastEndNs > longestGapNs) {
      longestGapNs = startNs - lastEndNs;
      afterGapNs = startNs;
    }
    lastEndNs = Math.max(lastEndNs, endNs);
  }
  const busyStartNs = longestGapNs > lastEndNs - afterGapNs ? afterGapNs : firstNs;
  return { busyStartNs, strideNs: lastEndNs - busyStartNs + replicaGapNs };
}

/**
 * Which rows belong to the idle start: those that start before the busy part, and those that
 * share a correlation id with one of them (an API call and the GPU op it launched, an event
 * record without a time), so a pair is never split between the idle start and the replicas.
 */
export class IdleStart {
  private readonly correlationIds = new Set<number>();

  constructor(private readonly plan: ReplicaPlan) {}

  /** Notes a row (first pass, every row): its first nonzero time and correlation id (0: none). */
  note(startNs: number, correlationId: number): void {
    if (startNs > 0 && startNs < this.plan.busyStartNs && correlationId !== 0) {
      this.correlationIds.add(correlationId);
    }
  }

  /** Whether a row is written once, unshifted, rather than in every replica. */
  has(startNs: number, correlationId: number): boolean {
    return (
      (startNs > 0 && startNs < this.plan.busyStartNs) ||
      (correlationId !== 0 && this.correlationIds.has(correlationId))
    );
  }
}
