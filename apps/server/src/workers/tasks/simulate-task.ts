import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidRunRequest } from '@streamscope/executor';
import type { DeviceProfile, Simulation } from '@streamscope/simulator';
import { SimulationError, createSimulation } from '@streamscope/simulator';
import { TraceEncoder } from '@streamscope/trace';
import { validateWorkload } from '@streamscope/workload';
import type { SimulateRequest } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

const tickMs = 16;
// Fast pace: events simulated between two batches sent, so a cancel gets in between.
const eventsPerSlice = 20_000;

/**
 * A simulator run on this thread: the workload is validated and expanded here (a 2M-op workload
 * takes seconds to expand), simulated at its pace, and what the trace gained after each step is
 * sent to the event loop as codec bytes (transferred), a few batches ahead of it at most
 * (credits), as the cuda child's records come.
 */
export async function simulateTask(
  request: SimulateRequest,
  ctx: TaskContext,
): Promise<TaskResult> {
  const checked = validateWorkload(request.workload);
  if (!checked.ok) {
    throw new InvalidRunRequest(checked.errors);
  }
  let simulation: Simulation;
  try {
    simulation = createSimulation(checked.plan, request.profile as DeviceProfile);
  } catch (error) {
    if (error instanceof SimulationError) {
      throw new InvalidRunRequest([{ path: '$', message: error.message }]);
    }
    throw error;
  }
  const encoder = new TraceEncoder(simulation.trace);
  const t0 = performance.now();
  let seenVersion = -1;
  for (;;) {
    ctx.signal.throwIfAborted();
    const done =
      request.pace === 'fast'
        ? simulation.step(Number.POSITIVE_INFINITY, eventsPerSlice)
        : simulation.step(((performance.now() - t0) * 1e6) / request.slowdown);
    if (simulation.trace.version !== seenVersion) {
      seenVersion = simulation.trace.version;
      await ctx.credit();
      ctx.signal.throwIfAborted();
      const bytes = encoder.encodeNew();
      ctx.send({ type: 'chunk', taskId: ctx.taskId, bytes }, [bytes.buffer as ArrayBuffer]);
    }
    if (done) {
      return { result: null };
    }
    await sleep(request.pace === 'fast' ? 0 : tickMs);
  }
}
