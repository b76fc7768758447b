import process from 'node:process';
import type { Plan } from '@streamscope/workload';
import { validateWorkload } from '@streamscope/workload';
import { TraceDecoder } from '@streamscope/trace';
import type { Backend, BackendStatus, RunHandle, RunRequest } from '../backend.ts';
import { LiveRun } from '../live-run.ts';
import { invalidWorkload } from '../invalid-request.ts';
import type { ExecutorProcessOptions } from './executor-process.ts';
import { ExecutorProcess, describeExit, probeInChild } from './executor-process.ts';
import { cudaRunTrace, lowerPlan } from './lower-plan.ts';
import type { NativePlan, NativeRunOptions } from './native-plan.ts';
import { NativeOpCode, nativeOpStride } from './native-plan.ts';
import type { FromChild, NativeStatus, ProbeReport } from './protocol.ts';
import { unavailableReason } from './protocol.ts';

export const executorProducer = 'streamscope-executor 0.1';

export interface CudaBackendOptions extends ExecutorProcessOptions {
  /** After a cancel (or the time limit), how long the child may take to stop before SIGKILL. */
  readonly cancelGraceMs?: number;
}

export interface CudaRunOptions {
  /** auto: CUPTI, falling back to cudaEvent pairs; none: no GPU timing (overhead baseline). */
  readonly timing?: NativeRunOptions['timing'];
  readonly flushIntervalMs?: number;
  readonly maxQueuedRecords?: number;
  readonly preset?: string;
  /** Fault tests: a kernel that writes through a null pointer after this many ops of thread 0. */
  readonly injectFaultAfterOps?: number;
}

/** A GPU run: also what the addon said when it ended (drops, makespan). */
export class CudaRun extends LiveRun {
  nativeStatus: NativeStatus | undefined;
  /** The executor child's pid (fault tests kill it). */
  executorPid = 0;
}

/**
 * Runs workloads on the GPU in a child process that loads the addon. A crash, a sticky CUDA
 * error or a hang ends only the child; the watchdog ends runs past their limit and says why.
 */
export class CudaBackend implements Backend {
  readonly name = 'cuda' as const;
  private probePromise: Promise<ProbeReport> | undefined;

  constructor(private readonly options: CudaBackendOptions) {}

  /** The probe, taken once per backend in a short-lived child. */
  probe(): Promise<ProbeReport> {
    this.probePromise ??= probeInChild(this.options);
    return this.probePromise;
  }

  async status(): Promise<BackendStatus> {
    const probe = await this.probe();
    const reason = unavailableReason(probe);
    const targets = (probe.cuda?.devices ?? []).map((d) => `${d.deviceId}: ${d.name}`);
    return reason === undefined
      ? { name: 'cuda', available: true, targets }
      : { name: 'cuda', available: false, reason, targets };
  }

  start(request: RunRequest): RunHandle {
    const result = validateWorkload(request.workload);
    if (!result.ok) {
      throw invalidWorkload(result.errors);
    }
    return this.startPlan(result.plan, request);
  }

  /** Runs an already validated plan (calibration and benchmarks build theirs directly). */
  startPlan(
    plan: Plan,
    request: Pick<RunRequest, 'target' | 'timeLimitMs'>,
    runOptions: CudaRunOptions = {},
  ): CudaRun {
    const firstDevice = request.target === undefined ? 0 : Number.parseInt(request.target, 10);
    if (!Number.isInteger(firstDevice) || firstDevice < 0) {
      throw new RangeError(`cuda target must be a device ordinal, got '${request.target}'`);
    }
    const trace = cudaRunTrace(plan, executorProducer, runOptions.preset);
    const run = new CudaRun(trace);
    const child = new ExecutorProcess(this.options);
    run.executorPid = child.pid;
    const decoder = new TraceDecoder(trace);
    const graceMs = this.options.cancelGraceMs ?? 3000;
    let stopReason: string | undefined;
    let cancelRequested = false;
    let killTimer: NodeJS.Timeout | undefined;

    const end = (status: 'finished' | 'cancelled' | 'failed', reason?: string): void => {
      clearTimeout(watchdog);
      clearTimeout(killTimer);
      if (status === 'failed') {
        run.finish({ status, reason: reason ?? 'unknown failure' });
      } else {
        run.finish({ status });
      }
      child.close();
      // A child that ignores the closed channel (stuck in the driver) is killed.
      setTimeout(() => child.kill(), graceMs).unref();
    };
    const stop = (why: string | undefined): void => {
      stopReason ??= why;
      child.send({ type: 'cancel' });
      killTimer ??= setTimeout(() => child.kill(), graceMs);
    };
    const watchdog = setTimeout(() => {
      stop(`time limit of ${request.timeLimitMs} ms exceeded; the executor was stopped`);
    }, request.timeLimitMs);

    run.setCancel(() => {
      cancelRequested = true;
      stop(undefined);
    });

    child.onMessage((message: FromChild) => {
      switch (message.type) {
        case 'started':
          trace.meta = {
            ...trace.meta,
            originNs: message.originNs,
            timingMethod: message.timingMethod === 'cupti' ? 'cupti' : 'events',
            ...(message.timingNote !== '' || message.timingMethod === 'none'
              ? { warnings: [message.timingNote || 'GPU timing off: host-side API times only'] }
              : {}),
          };
          run.grew();
          return;
        case 'records':
          try {
            decoder.apply(message.bytes);
            run.grew();
          } catch (error) {
            stop(undefined);
            end('failed', `corrupt records from the executor: ${(error as Error).message}`);
          }
          return;
        case 'ended': {
          run.nativeStatus = message.status;
          const lost = lostRecords(message.status);
          if (lost !== undefined) {
            trace.meta = { ...trace.meta, warnings: [...(trace.meta.warnings ?? []), lost] };
          }
          if (stopReason !== undefined) {
            end('failed', stopReason);
          } else if (message.status.state === 'failed') {
            end('failed', message.status.error ?? 'the executor reported a failure');
          } else {
            end(message.status.state === 'cancelled' || cancelRequested ? 'cancelled' : 'finished');
          }
          return;
        }
        case 'error':
          end('failed', message.message);
          return;
        default:
          return;
      }
    });

    void child.exited.then((exit) => {
      if (stopReason !== undefined) {
        end('failed', stopReason);
      } else if (cancelRequested) {
        end('cancelled');
      } else {
        end(
          'failed',
          `the executor process ended unexpectedly (${describeExit(exit)}); records received so far are kept`,
        );
      }
    });

    child.ready().then(
      (probe) => {
        const reason = unavailableReason(probe);
        if (reason !== undefined) {
          end('failed', reason);
          return;
        }
        if (cancelRequested) {
          return;
        }
        try {
          const lowered = lowerPlan(plan, trace, {
            firstDevice,
            devices: probe.cuda?.devices ?? [],
            pid: process.pid,
          });
          const native =
            runOptions.injectFaultAfterOps === undefined
              ? lowered
              : withInjectedFault(
                  lowered,
                  runOptions.injectFaultAfterOps,
                  trace.strings.intern('fault'),
                );
          run.grew();
          child.send({
            type: 'run',
            plan: native,
            options: {
              timing: runOptions.timing ?? 'auto',
              flushIntervalMs: runOptions.flushIntervalMs ?? 10,
              firstStringId: trace.strings.count,
              maxQueuedRecords: runOptions.maxQueuedRecords ?? 4 * 1024 * 1024,
            },
          });
        } catch (error) {
          end('failed', (error as Error).message);
        }
      },
      (error: unknown) => end('failed', (error as Error).message),
    );
    return run;
  }
}

function lostRecords(status: NativeStatus): string | undefined {
  const parts: string[] = [];
  if ((status.dropped ?? 0) > 0) {
    parts.push(`${status.dropped} records dropped at the executor's memory cap`);
  }
  if ((status.cuptiDropped ?? 0) > 0) {
    parts.push(`${status.cuptiDropped} records dropped by CUPTI`);
  }
  if ((status.unmatched ?? 0) > 0) {
    parts.push(`${status.unmatched} GPU records could not be matched to an op`);
  }
  if ((status.unresolvedWaits ?? 0) > 0) {
    parts.push(
      `${status.unresolvedWaits} stream waits have no GPU time (their event records never arrived)`,
    );
  }
  if ((status.namesDropped ?? 0) > 0) {
    parts.push(`${status.namesDropped} names past the executor's bound were replaced`);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** Inserts a faulting kernel on thread 0's first stream op after `afterOps` ops. */
function withInjectedFault(plan: NativePlan, afterOps: number, nameId: number): NativePlan {
  const [first, ...rest] = plan.threads;
  if (first === undefined) {
    return plan;
  }
  const at = Math.min(afterOps, first.ops.length / nativeOpStride) * nativeOpStride;
  const stream = plan.streams.findIndex((s) => s.type >= 2);
  const fault = new Float64Array(nativeOpStride);
  fault.set([NativeOpCode.Fault, Math.max(0, stream)]);
  fault[nativeOpStride - 2] = nameId;
  fault[nativeOpStride - 1] = -1;
  const ops = new Float64Array(first.ops.length + nativeOpStride);
  ops.set(first.ops.subarray(0, at));
  ops.set(fault, at);
  ops.set(first.ops.subarray(at), at + nativeOpStride);
  return { ...plan, threads: [{ track: first.track, ops }, ...rest] };
}
