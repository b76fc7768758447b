import type { AnalysisContext } from './context.ts';
import { rangesNamed } from './host-ranges.ts';
import type { IntervalList } from './intervals.ts';
import { measureWithin, subtractIntervals } from './intervals.ts';
import { communicationSplit } from './pipeline-comm.ts';
import type { StepMetrics, StepReport } from './types.ts';

const skewedStepFactor = 4;

/**
 * Per-step metrics. A step is a host range whose name matches `options.stepPattern`
 * (`ProfilerStep#N` by default, which PyTorch's profiler records once per `prof.step()`; NVTX
 * ranges named by the user otherwise). A range inside an earlier step on the same thread is
 * part of it, not a step of its own. Over each step's time on the GPUs of its process (all GPUs
 * when none share its process id): step time, GPU busy, compute, communication, communication
 * with no compute beside it (exposed), pipeline stages' sends and receives (apart from the
 * communication: their waits are the schedule's, not exposed transfers) and idle time (the
 * step's time on each GPU less its busy time, summed over those GPUs). When launch links
 * disagree (host and GPU clocks apart), a step longer than the whole GPU span and
 * `skewedStepFactor` × the median step is named in `skewedSteps`: its time is the mismatch,
 * not work.
 */
export function stepReport(ctx: AnalysisContext, launchLinksDisagree = false): StepReport {
  const { trace, options } = ctx;
  // Steps are host time: clip them to the window asked for, not to the GPU's first and last op.
  const window = ctx.requested;
  const pattern = options.stepPattern;
  const cols = trace.ranges.columns();
  const candidates = rangesNamed(trace, new RegExp(pattern));
  // Outermost matches only: per thread, skip a range that ends inside the last step kept there.
  const lastEndByTrack = new Map<number, number>();
  const kept: number[] = [];
  for (const r of candidates) {
    const track = cols.track[r]!;
    if (cols.endNs[r]! <= (lastEndByTrack.get(track) ?? -Infinity)) {
      continue;
    }
    if (cols.endNs[r]! < window.fromNs || cols.startNs[r]! > window.toNs) {
      continue;
    }
    kept.push(r);
    lastEndByTrack.set(track, cols.endNs[r]!);
  }
  const { collective, pointToPoint } = communicationSplit(ctx);
  const exposedBySlot = ctx.devices.map((d, slot) =>
    collective[slot]!.count > 0
      ? subtractIntervals(collective[slot]!, d.compute)
      : collective[slot]!,
  );
  const slotsOfPid = slotsByPid(ctx);
  const allSlots = ctx.devices.map((_, slot) => slot);
  const steps: StepMetrics[] = kept.map((r) => {
    const track = cols.track[r]!;
    const info = trace.tracks[track];
    const slots = (info !== undefined ? slotsOfPid.get(info.pid) : undefined) ?? allSlots;
    const startNs = cols.startNs[r]!;
    const endNs = cols.endNs[r]!;
    const lo = Math.max(startNs, window.fromNs);
    const hi = Math.min(endNs, window.toNs);
    let gpuBusyNs = 0;
    let computeNs = 0;
    let communicationNs = 0;
    let exposedCommunicationNs = 0;
    let pointToPointNs = 0;
    let idleNs = 0;
    for (const slot of slots) {
      const device = ctx.devices[slot]!;
      const busy = within(device.all, lo, hi);
      gpuBusyNs += busy;
      idleNs += Math.max(0, hi - lo - busy);
      computeNs += within(device.compute, lo, hi);
      communicationNs += within(collective[slot]!, lo, hi);
      exposedCommunicationNs += within(exposedBySlot[slot]!, lo, hi);
      pointToPointNs += within(pointToPoint[slot]!, lo, hi);
    }
    return {
      name: trace.strings.get(cols.nameId[r]!),
      ...(info?.rank !== undefined ? { rank: info.rank } : {}),
      range: r,
      track,
      startNs,
      endNs,
      stepNs: endNs - startNs,
      gpuBusyNs,
      computeNs,
      communicationNs,
      exposedCommunicationNs,
      pointToPointNs,
      idleNs,
    };
  });
  const durations = steps.map((s) => s.stepNs).sort((a, b) => a - b);
  const n = durations.length;
  const medianStepNs =
    n === 0
      ? 0
      : n % 2 === 1
        ? durations[n >> 1]!
        : (durations[n / 2 - 1]! + durations[n / 2]!) / 2;
  const slowest = [...steps]
    .sort((a, b) => b.stepNs - a.stepNs || a.startNs - b.startNs)
    .slice(0, options.slowestSteps);
  // Longer than the whole GPU span and far longer than a typical step: the mismatch, not work.
  const gpuSpanNs = ctx.gpuToNs - ctx.gpuFromNs;
  const skewedSteps = launchLinksDisagree
    ? steps
        .filter((s) => s.stepNs > gpuSpanNs && s.stepNs > skewedStepFactor * medianStepNs)
        .map((s) => s.name)
    : [];
  return {
    pattern,
    count: n,
    meanStepNs: n > 0 ? durations.reduce((x, y) => x + y, 0) / n : 0,
    medianStepNs,
    maxStepNs: n > 0 ? durations[n - 1]! : 0,
    steps: steps.slice(0, options.maxListedSteps),
    truncated: steps.length > options.maxListedSteps,
    slowest,
    skewedSteps,
  };
}

function within(list: IntervalList, fromNs: number, toNs: number): number {
  return toNs > fromNs ? measureWithin(list, fromNs, toNs) : 0;
}

/** Device slots per process id, from the GPU streams each process has. */
function slotsByPid(ctx: AnalysisContext): Map<number, number[]> {
  const out = new Map<number, number[]>();
  ctx.trace.tracks.forEach((info, t) => {
    const slot = ctx.deviceSlotOfTrack[t]!;
    if (info.kind !== 'gpu-stream' || slot < 0) {
      return;
    }
    const slots = out.get(info.pid) ?? [];
    if (!slots.includes(slot)) {
      slots.push(slot);
    }
    out.set(info.pid, slots);
  });
  return out;
}
