/**
 * How a recorded run is repeated into a long one: the recording's idle start (process setup, a
 * first copy, then seconds of nothing before the training steps) and its warm-up steps are
 * written once, and its steady steps are repeated back to back, as the steps of a long training
 * run follow each other. A long run warms up once: repeating the first step's lazy loading
 * (880 cuGetProcAddress calls, 128 stream creations in the recorded train run) in every copy
 * made 7 records of every GPU op instead of the steady steps' 3.4.
 */
export interface ReplicaPlan {
  /**
   * Rows that start before this (ns, the recording's clock) are the idle start and warm-up:
   * written once.
   */
  readonly busyStartNs: number;
  /** What each replica's times move past the previous one's: the busy part's span plus 1 µs. */
  readonly strideNs: number;
}

/** The gap left between one replica's last end and the next one's first start. */
const replicaGapNs = 1000;

/** A step slower than this many times the median step is still warming up. */
const warmStepOverMedian = 2;

/**
 * The plan for rows timed by `intervals` (start and end ns; 0 where untimed). The busy part
 * starts after the longest stretch where nothing runs, when that stretch is longer than all
 * that follows it; otherwise the whole recording is busy. `steps` are the recording's annotated
 * ranges (NVTX push/pop, start and end ns): where the busy part holds at least three outermost
 * ones, the repeated part starts at the first of the steady steps that end it (each within
 * twice the median step), and the slower steps before them are its warm-up, written once.
 */
export function planReplicas(
  intervals: Iterable<readonly [number, number]>,
  steps: Iterable<readonly [number, number]> = [],
): ReplicaPlan {
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
  const busyNs = longestGapNs > lastEndNs - afterGapNs ? afterGapNs : firstNs;
  const busyStartNs = steadyStartNs(outermost(steps, busyNs)) ?? busyNs;
  return { busyStartNs, strideNs: lastEndNs - busyStartNs + replicaGapNs };
}

/** The ranges starting at or after `fromNs` that no other such range holds, by start. */
function outermost(
  ranges: Iterable<readonly [number, number]>,
  fromNs: number,
): [number, number][] {
  const sorted = [...ranges]
    .filter(([startNs, endNs]) => startNs >= fromNs && endNs >= startNs)
    .map(([startNs, endNs]): [number, number] => [startNs, endNs])
    .sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: [number, number][] = [];
  for (const range of sorted) {
    if (out.length === 0 || range[0] >= out.at(-1)![1]) {
      out.push(range);
    }
  }
  return out;
}

/** Where the steady steps that end the recording begin; undefined without three steps. */
function steadyStartNs(steps: readonly [number, number][]): number | undefined {
  if (steps.length < 3) {
    return undefined;
  }
  const lengths = steps.map(([startNs, endNs]) => endNs - startNs).sort((a, b) => a - b);
  const medianNs = lengths[lengths.length >> 1]!;
  let first = steps.length;
  while (
    first > 0 &&
    steps[first - 1]![1] - steps[first - 1]![0] <= warmStepOverMedian * medianNs
  ) {
    first--;
  }
  return first < steps.length ? steps[first]![0] : undefined;
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
