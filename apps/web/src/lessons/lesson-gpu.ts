import type { Trace } from '@streamscope/trace';
import { loadTrace } from '@streamscope/trace';
import type { WorkloadInput } from '@streamscope/workload';
import { getTraceBytes, startRun } from '../api/client.ts';
import { LiveSubscription } from '../api/live-client.ts';
import { findLesson } from './lesson-catalogue.ts';
import type { LessonRunResult } from './lesson-runner.ts';
import { pairFromRuns } from './run-lesson-pair.ts';

/** Runs one workload for real; resolves with the trace it recorded. */
export type RunWorkload = (workload: WorkloadInput) => Promise<Trace>;

/**
 * Runs a workload on one of the server's backends (`target`: a device profile for sim, a device
 * for cuda, '' for the first) and resolves with the id of its stored trace once the live channel
 * says the run finished.
 */
export async function runOnServer(
  workload: WorkloadInput,
  backend: 'sim' | 'cuda',
  target: string,
): Promise<string> {
  const ticket = await startRun({ workload, backend, ...(target === '' ? {} : { target }) });
  const outcome = await new Promise<{ type: string; reason: string }>((resolve) => {
    const subscription = new LiveSubscription(ticket.id, {
      // The trace is read whole at the end; live batches are not needed here.
      onBatches: () => undefined,
      onControl: (control) => {
        if (
          control.type === 'finished' ||
          control.type === 'failed' ||
          control.type === 'cancelled'
        ) {
          subscription.close();
          const reason = control.message['reason'];
          resolve({ type: control.type, reason: typeof reason === 'string' ? reason : '' });
        }
      },
      onError: () => undefined,
    });
  });
  if (outcome.type !== 'finished') {
    throw new Error(
      `the ${backend} run ${ticket.id} ${outcome.type}${outcome.reason === '' ? '' : `: ${outcome.reason}`}`,
    );
  }
  // A run's trace is stored under the run's id.
  return ticket.id;
}

/** Runs a workload on the server's GPU and fetches the trace it recorded. */
export function serverGpuRunner(target: string): RunWorkload {
  return async (workload) =>
    loadTrace(await getTraceBytes(await runOnServer(workload, 'cuda', target)));
}

/**
 * Turns a simulated pair into a measured one: runs the same two workloads, one after the other,
 * with `run`, then analyses and explains them like the simulated pair. Measured traces are small
 * (a lesson is a few hundred ops), so this analysis runs on the main thread.
 */
export function gpuPairRunner(
  run: RunWorkload,
  deviceLabel: string,
): (simulated: LessonRunResult) => Promise<LessonRunResult> {
  return async (simulated) => {
    const { summary } = simulated;
    const lesson = findLesson(summary.lessonId);
    if (lesson === undefined) {
      throw new Error(`no lesson ${summary.lessonId}`);
    }
    const beforeTrace = await run(summary.before.workload);
    const afterTrace = await run(summary.after.workload);
    const {
      beforeTrace: b,
      afterTrace: a,
      ...measured
    } = pairFromRuns(
      lesson,
      deviceLabel,
      { params: summary.before.params, workload: summary.before.workload, trace: beforeTrace },
      { params: summary.after.params, workload: summary.after.workload, trace: afterTrace },
    );
    return { summary: measured, beforeTrace: b, afterTrace: a };
  };
}
