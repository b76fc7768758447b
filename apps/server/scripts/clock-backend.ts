import type {
  Backend,
  BackendName,
  BackendStatus,
  RunEnd,
  RunHandle,
  RunRequest,
} from '@streamscope/executor';
import type { OpInput } from '@streamscope/trace';
import { OpKind, StreamType, Trace } from '@streamscope/trace';
import type { BackendSet } from '../src/runs/run-manager.ts';

/** What the benchmark asks a clock run to produce. */
export interface ClockWorkload {
  readonly name: string;
  readonly ops: number;
  readonly opsPerTick: number;
  /** 0: ticks back to back (setImmediate); otherwise a timer of this many ms between ticks. */
  readonly tickMs: number;
  /** Wait before the first op, so every client has subscribed. */
  readonly startDelayMs: number;
}

export function isClockWorkload(value: unknown): value is ClockWorkload {
  const w = value as Partial<ClockWorkload> | null;
  return (
    typeof w?.name === 'string' &&
    [w.ops, w.opsPerTick, w.tickMs, w.startDelayMs].every(
      (n) => typeof n === 'number' && Number.isInteger(n) && n >= 0,
    )
  );
}

/**
 * A run whose ops are stamped with the monotonic clock at creation: `meta.originNs` is
 * `process.hrtime.bigint()` at the start and each op starts at its creation time relative to it.
 * CLOCK_MONOTONIC is shared by all processes of a host, so a client in another process measures
 * creation-to-arrival latency exactly.
 */
class ClockRun implements RunHandle {
  readonly trace: Trace;
  readonly done: Promise<RunEnd>;
  private readonly listeners = new Set<() => void>();
  private settle: (end: RunEnd) => void = () => undefined;
  private stopped = false;
  private readonly originNs: bigint;

  constructor(private readonly workload: ClockWorkload) {
    this.originNs = process.hrtime.bigint();
    this.trace = new Trace({
      title: workload.name,
      sourceFormat: 'streamscope-sim',
      producer: 'live benchmark clock',
      originNs: this.originNs.toString(),
    });
    this.trace.addDevice({ deviceId: 0, name: 'clock' });
    this.trace.addProcess({ pid: 1, name: 'bench' });
    for (let s = 0; s < 4; s++) {
      this.trace.addTrack({
        kind: 'gpu-stream',
        name: '',
        pid: 1,
        deviceId: 0,
        contextId: 1,
        streamId: s,
        streamType: StreamType.NonBlocking,
        priority: 0,
      });
    }
    this.done = new Promise((resolve) => {
      this.settle = resolve;
    });
    setTimeout(() => this.tick(), workload.startDelayMs);
  }

  private tick(): void {
    if (this.stopped) {
      return;
    }
    const op: OpInput = {
      startNs: 0,
      endNs: 0,
      track: 0,
      kind: OpKind.Kernel,
      nameId: this.trace.strings.intern('tick'),
    };
    const w = this.workload;
    const n = Math.min(w.opsPerTick, w.ops - this.trace.ops.count);
    const nowNs = Number(process.hrtime.bigint() - this.originNs);
    for (let i = 0; i < n; i++) {
      op.track = i & 3;
      op.startNs = nowNs;
      op.endNs = nowNs + 1;
      this.trace.addOp(op);
    }
    for (const listener of this.listeners) {
      listener();
    }
    if (this.trace.ops.count >= w.ops) {
      this.settle({ status: 'finished' });
      return;
    }
    if (w.tickMs === 0) {
      setImmediate(() => this.tick());
    } else {
      setTimeout(() => this.tick(), w.tickMs);
    }
  }

  onUpdate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  cancel(): void {
    this.stopped = true;
    this.settle({ status: 'cancelled' });
  }
}

class ClockBackend implements Backend {
  constructor(readonly name: BackendName) {}

  status(): Promise<BackendStatus> {
    return Promise.resolve({ name: this.name, available: true, targets: ['clock'] });
  }

  start(request: RunRequest): RunHandle {
    if (!isClockWorkload(request.workload)) {
      throw new Error('not a clock workload');
    }
    return new ClockRun(request.workload);
  }
}

/** Every backend name runs the clock; `auto` picks sim. */
export function clockBackends(): BackendSet {
  const sim = new ClockBackend('sim');
  return {
    backends: { sim, cuda: new ClockBackend('cuda'), replay: new ClockBackend('replay') },
    resolveAuto: () => Promise.resolve({ backend: sim, reason: 'benchmark clock' }),
  };
}
