/** A queued unit of work: `run` resolves when the run has ended. */
export interface QueueJob {
  readonly id: string;
  /** Jobs in one lane share its capacity: `cuda:0` holds 1, `concurrent` holds the sim cap. */
  readonly lane: string;
  run(): Promise<void>;
}

interface Lane {
  readonly running: Set<string>;
  readonly waiting: QueueJob[];
}

/**
 * FIFO lanes with a capacity each: GPU runs one at a time per device, simulator and replay runs
 * side by side up to a cap. `onPositions` reports the waiting order of a lane after it changed.
 */
export class RunQueue {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly capacityOf: (lane: string) => number,
    private readonly onPositions: (waitingIds: readonly string[]) => void,
  ) {}

  /** Adds a job; returns how many jobs wait ahead of it (0 when it starts now or next). */
  enqueue(job: QueueJob): number {
    const lane = this.lane(job.lane);
    lane.waiting.push(job);
    const position = lane.waiting.length - 1;
    this.pump(job.lane);
    return position;
  }

  /** Removes a job that has not started; false when it is not waiting. */
  remove(id: string): boolean {
    for (const lane of this.lanes.values()) {
      const index = lane.waiting.findIndex((job) => job.id === id);
      if (index >= 0) {
        lane.waiting.splice(index, 1);
        this.onPositions(lane.waiting.map((job) => job.id));
        return true;
      }
    }
    return false;
  }

  /** Jobs ahead of a waiting job, or undefined when it is not waiting. */
  position(id: string): number | undefined {
    for (const lane of this.lanes.values()) {
      const index = lane.waiting.findIndex((job) => job.id === id);
      if (index >= 0) {
        return index;
      }
    }
    return undefined;
  }

  /** Every waiting job, dropped from the queue (for shutdown). */
  drain(): QueueJob[] {
    const jobs: QueueJob[] = [];
    for (const lane of this.lanes.values()) {
      jobs.push(...lane.waiting.splice(0));
    }
    return jobs;
  }

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { running: new Set(), waiting: [] };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private pump(key: string): void {
    const lane = this.lane(key);
    let started = false;
    while (lane.running.size < this.capacityOf(key) && lane.waiting.length > 0) {
      const job = lane.waiting.shift()!;
      started = true;
      lane.running.add(job.id);
      void job
        .run()
        .catch(() => undefined)
        .finally(() => {
          lane.running.delete(job.id);
          this.pump(key);
        });
    }
    if (started) {
      this.onPositions(lane.waiting.map((job) => job.id));
    }
  }
}
