import type {
  Backend,
  BackendStatus,
  RunHandle,
  RunRequest,
  SimBackend,
} from '@streamscope/executor';
import { LiveRun } from '@streamscope/executor';
import { Trace, TraceDecoder } from '@streamscope/trace';
import type { SimulateRequest, ToWorker } from '../workers/protocol.ts';
import type { WorkerPool } from '../workers/worker-pool.ts';
import { messageOf } from './run-outcome.ts';

/**
 * The simulator backend with its runs on a worker thread of the pool: the workload's
 * validation and expansion (O(ops), seconds for millions) and the simulation never run on the
 * event loop. The worker sends what the trace gained as codec bytes, which are decoded here
 * into the run's trace batch by batch, as the cuda child's records are; the worker stays a few
 * batches ahead at most. Profiles and status are the in-process SimBackend's.
 */
export class SimThreadBackend implements Backend {
  readonly name = 'sim' as const;

  constructor(
    private readonly sim: SimBackend,
    private readonly pool: WorkerPool,
  ) {}

  status(): Promise<BackendStatus> {
    return this.sim.status();
  }

  start(request: RunRequest): RunHandle {
    // An unknown profile is refused here, before the run is queued on a worker.
    const profile = this.sim.profile(request.target);
    const trace = new Trace();
    const decoder = new TraceDecoder(trace);
    const run = new LiveRun(trace);
    const controller = new AbortController();
    let timedOut = false;
    let corrupt: string | undefined;
    const watchdog = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, request.timeLimitMs);
    run.setCancel(() => controller.abort());
    const task: SimulateRequest = {
      workload: request.workload,
      profile,
      pace: request.pace,
      slowdown: request.slowdown ?? 1,
    };
    this.pool
      .run(
        { kind: 'simulate', request: task },
        {
          signal: controller.signal,
          onMessage: (message, send: (reply: ToWorker) => void) => {
            if (message.type !== 'chunk') {
              return;
            }
            // The run's title is the run manager's, whatever the worker's meta says.
            const title = trace.meta.title;
            try {
              decoder.apply(message.bytes);
            } catch (error) {
              corrupt = `corrupt records from the simulator thread: ${messageOf(error)}`;
              controller.abort();
              return;
            }
            trace.meta = { ...trace.meta, title };
            run.grew();
            send({ type: 'credit', taskId: message.taskId });
          },
        },
      )
      .then(
        () => run.finish({ status: 'finished' }),
        (error: unknown) => {
          if (corrupt !== undefined) {
            run.finish({ status: 'failed', reason: corrupt });
          } else if (timedOut) {
            run.finish({
              status: 'failed',
              reason: `time limit of ${request.timeLimitMs} ms exceeded`,
            });
          } else if (controller.signal.aborted) {
            run.finish({ status: 'cancelled' });
          } else {
            run.finish({ status: 'failed', reason: messageOf(error) });
          }
        },
      )
      .finally(() => clearTimeout(watchdog));
    return run;
  }
}
