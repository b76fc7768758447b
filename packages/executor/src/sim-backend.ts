import { performance } from 'node:perf_hooks';
import type { DeviceProfile, Simulation } from '@streamscope/simulator';
import { SimulationError, createSimulation, deviceProfiles } from '@streamscope/simulator';
import { validateWorkload } from '@streamscope/workload';
import type { Backend, BackendStatus, RunHandle, RunRequest } from './backend.ts';
import { invalidWorkload } from './invalid-request.ts';
import { LiveRun } from './live-run.ts';

export interface SimBackendOptions {
  /** Profile used when a request names none. */
  readonly defaultProfile?: string;
  /** More profiles by name, e.g. one made from `streamscope calibrate` output. */
  readonly extraProfiles?: Readonly<Record<string, DeviceProfile>>;
}

const tickMs = 16;
// Fast pace: events simulated per macrotask, so a long run never blocks the event loop.
const eventsPerSlice = 20_000;

/** The discrete-event simulator as a backend: paced at GPU speed or as fast as possible. */
export class SimBackend implements Backend {
  readonly name = 'sim' as const;
  private readonly profiles: Readonly<Record<string, DeviceProfile>>;
  private readonly defaultProfile: string;

  constructor(options: SimBackendOptions = {}) {
    this.profiles = { ...deviceProfiles, ...options.extraProfiles };
    this.defaultProfile = options.defaultProfile ?? 'h100';
  }

  /** Its device profiles, the default first (what a run without a target gets). */
  status(): Promise<BackendStatus> {
    const names = Object.keys(this.profiles);
    const targets = names.includes(this.defaultProfile)
      ? [this.defaultProfile, ...names.filter((n) => n !== this.defaultProfile)]
      : names;
    return Promise.resolve({ name: 'sim', available: true, targets });
  }

  profile(name: string | undefined): DeviceProfile {
    const key = name ?? this.defaultProfile;
    const profile = Object.hasOwn(this.profiles, key) ? this.profiles[key] : undefined;
    if (profile === undefined) {
      throw new RangeError(
        `unknown device profile '${key}' (known: ${Object.keys(this.profiles).join(', ')})`,
      );
    }
    return profile;
  }

  start(request: RunRequest): RunHandle {
    const result = validateWorkload(request.workload);
    if (!result.ok) {
      throw invalidWorkload(result.errors);
    }
    let simulation: Simulation;
    try {
      simulation = createSimulation(result.plan, this.profile(request.target));
    } catch (error) {
      if (error instanceof SimulationError) {
        throw invalidWorkload([{ path: '$', message: error.message }]);
      }
      throw error;
    }
    const run = new LiveRun(simulation.trace);
    const t0 = performance.now();
    const slowdown = request.slowdown ?? 1;
    let timer: NodeJS.Timeout | undefined;
    let seenVersion = simulation.trace.version;
    const step = (): void => {
      let done: boolean;
      try {
        done =
          request.pace === 'fast'
            ? simulation.step(Number.POSITIVE_INFINITY, eventsPerSlice)
            : simulation.step(((performance.now() - t0) * 1e6) / slowdown);
      } catch (error) {
        clearTimeout(watchdog);
        run.finish({ status: 'failed', reason: `simulation failed: ${(error as Error).message}` });
        return;
      }
      if (simulation.trace.version !== seenVersion) {
        seenVersion = simulation.trace.version;
        run.grew();
      }
      if (done) {
        clearTimeout(watchdog);
        run.finish({ status: 'finished' });
        return;
      }
      timer = setTimeout(step, request.pace === 'fast' ? 0 : tickMs);
    };
    const watchdog = setTimeout(() => {
      clearTimeout(timer);
      run.finish({ status: 'failed', reason: `time limit of ${request.timeLimitMs} ms exceeded` });
    }, request.timeLimitMs);
    run.setCancel(() => {
      clearTimeout(timer);
      clearTimeout(watchdog);
      run.finish({ status: 'cancelled' });
    });
    timer = setTimeout(step, 0);
    return run;
  }
}
