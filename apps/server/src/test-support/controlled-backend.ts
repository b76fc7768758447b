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
import { deviceProfiles } from '@streamscope/simulator';
import type { BackendSet } from '../runs/run-manager.ts';

/** A run whose trace grows when the test says so: `addOps`, then `finish`/`fail`. */
export class ControlledRun implements RunHandle {
  readonly trace: Trace;
  readonly done: Promise<RunEnd>;
  cancelled = false;
  private settle: (end: RunEnd) => void = () => undefined;
  private readonly listeners = new Set<() => void>();
  private readonly op: OpInput = { startNs: 0, endNs: 0, track: 0, kind: OpKind.Kernel, nameId: 0 };
  private nextStartNs = 0;

  constructor(
    readonly request: RunRequest,
    private readonly ignoreCancel: boolean,
  ) {
    this.trace = new Trace({
      title: 'controlled',
      sourceFormat: 'streamscope-sim',
      timingMethod: 'sim',
    });
    this.trace.addDevice({ deviceId: 0, name: 'test device' });
    this.trace.addProcess({ pid: 1, name: 'test' });
    for (let s = 0; s < 3; s++) {
      this.trace.addTrack({
        kind: 'gpu-stream',
        name: `stream ${s}`,
        pid: 1,
        deviceId: 0,
        contextId: 1,
        streamId: s + 13,
        streamType: StreamType.NonBlocking,
        priority: 0,
      });
    }
    this.done = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  /** Appends `count` kernels, round-robin over three streams, each 1000 ns, and notifies. */
  addOps(count: number): void {
    const op = this.op;
    for (let i = 0; i < count; i++) {
      op.track = (this.trace.ops.count + i) % 3;
      op.startNs = this.nextStartNs;
      op.endNs = this.nextStartNs + 1000;
      op.nameId = this.trace.strings.intern(`kernel ${(this.trace.ops.count + i) % 7}`);
      op.correlationId = this.trace.ops.count + i + 1;
      this.nextStartNs += 400;
      this.trace.addOp(op);
    }
    for (const listener of this.listeners) {
      listener();
    }
  }

  onUpdate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  cancel(): void {
    this.cancelled = true;
    if (!this.ignoreCancel) {
      this.settle({ status: 'cancelled' });
    }
  }

  finish(): void {
    this.settle({ status: 'finished' });
  }

  fail(reason: string): void {
    this.settle({ status: 'failed', reason });
  }
}

/**
 * A backend for tests whose runs the test drives step by step (no timers, no sleeps). A workload
 * `{"refuse": "why"}` makes `start` throw; `{"ignoreCancel": true}` makes a run ignore cancel.
 */
export class ControlledBackend implements Backend {
  private readonly started: ControlledRun[] = [];
  private readonly waiters: ((run: ControlledRun) => void)[] = [];
  available = true;

  constructor(readonly name: BackendName) {}

  status(): Promise<BackendStatus> {
    return Promise.resolve(
      this.available
        ? { name: this.name, available: true, targets: ['test-device'] }
        : { name: this.name, available: false, reason: 'no test device here', targets: [] },
    );
  }

  start(request: RunRequest): RunHandle {
    const workload = (request.workload ?? {}) as { refuse?: string; ignoreCancel?: boolean };
    if (typeof workload.refuse === 'string') {
      throw new Error(workload.refuse);
    }
    const run = new ControlledRun(request, workload.ignoreCancel === true);
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      waiter(run);
    } else {
      this.started.push(run);
    }
    return run;
  }

  /** The next run this backend starts (already started ones first). */
  nextRun(): Promise<ControlledRun> {
    const run = this.started.shift();
    if (run !== undefined) {
      return Promise.resolve(run);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** sim, cuda (unavailable) and replay backends for tests; `auto` picks sim. */
export function controlledBackends(): {
  set: BackendSet;
  sim: ControlledBackend;
  cuda: ControlledBackend;
  replay: ControlledBackend;
} {
  const sim = new ControlledBackend('sim');
  const cuda = new ControlledBackend('cuda');
  cuda.available = false;
  const replay = new ControlledBackend('replay');
  return {
    sim,
    cuda,
    replay,
    set: {
      backends: { sim, cuda, replay },
      resolveAuto: () =>
        Promise.resolve({ backend: sim, reason: 'no CUDA device in tests; using the simulator' }),
      probe: () =>
        Promise.resolve({
          addon: { loaded: false, path: 'native/build', reason: 'no addon in tests' },
        }),
      profiles: () => Object.values(deviceProfiles),
    },
  };
}
