import type { Trace } from '@streamscope/trace';
import { opKindName, trackLabels } from '@streamscope/trace';
import { concurrencyProfile } from './concurrency.ts';
import type { AnalysisContext } from './context.ts';
import { buildContext } from './context.ts';
import { Engine, engineCount, engineKeys, occupiesStream } from './engines.ts';
import { intersectionNs, measure } from './intervals.ts';
import { launchLatency } from './launch.ts';
import { communicationSplit } from './pipeline-comm.ts';
import { queueDepths } from './queue-depth.ts';
import { bandwidthByDirection } from './stats.ts';
import type {
  EngineBusyNs,
  KernelClassBusyNs,
  Metrics,
  OverlapMetrics,
  RunSummary,
  StreamBusy,
  TimeWindow,
} from './types.ts';

/**
 * Makespan, op counts (GPU and host), busy time per engine, copy/compute and communication/compute
 * overlap: the `run --summary` line.
 */
export function summarizeRun(trace: Trace): RunSummary {
  const ctx = buildContext(trace);
  const opCounts = gpuOpCounts(ctx);
  let gpuOpCount = 0;
  for (const count of Object.values(opCounts)) {
    gpuOpCount += count;
  }
  const overlap = overlapMetrics(ctx);
  return {
    makespanNs: ctx.gpuToNs - ctx.gpuFromNs,
    gpuOpCount,
    hostOpCount: trace.ops.count - gpuOpCount,
    opCounts,
    busyNsByEngine: engineBusy(ctx),
    copyComputeOverlap: overlap.copyBusyNs > 0 ? overlap.all : null,
    commComputeOverlap: overlap.commCompute,
  };
}

/** Every metric over `trace` (or the ops touching `window`), without gaps or rules. */
export function computeMetrics(trace: Trace, window?: TimeWindow): Metrics {
  return metricsOf(buildContext(trace, window));
}

export function metricsOf(ctx: AnalysisContext): Metrics {
  const queues = queueDepths(ctx);
  const makespanNs = ctx.gpuToNs - ctx.gpuFromNs;
  let deviceBusyNs = 0;
  for (const device of ctx.devices) {
    deviceBusyNs += measure(device.all);
  }
  const deviceSpanNs = makespanNs * Math.max(1, ctx.devices.length);
  return {
    window: ctx.window,
    makespanNs,
    gpuFromNs: ctx.gpuFromNs,
    gpuToNs: ctx.gpuToNs,
    gpuOpCount: ctx.gpuOpCount,
    opCounts: gpuOpCounts(ctx),
    busyNsByEngine: engineBusy(ctx),
    kernelClasses: kernelClassBusy(ctx),
    deviceBusyNs,
    deviceUtilization: deviceSpanNs > 0 ? deviceBusyNs / deviceSpanNs : 0,
    overlap: overlapMetrics(ctx),
    streams: streamBusy(ctx),
    concurrency: concurrencyProfile(ctx),
    bandwidth: bandwidthByDirection(ctx),
    launchLatency: launchLatency(ctx),
    queueDepth: queues.rows,
    launchQueueFullNs: queues.fullNs,
  };
}

/** GPU ops (on stream tracks, touching the window) by kind name. */
function gpuOpCounts(ctx: AnalysisContext): Record<string, number> {
  const { cols, deviceSlotOfTrack, window } = ctx;
  const byKind = new Int32Array(32);
  for (let i = 0; i < cols.count; i++) {
    if (
      deviceSlotOfTrack[cols.track[i]!]! >= 0 &&
      cols.endNs[i]! >= window.fromNs &&
      cols.startNs[i]! <= window.toNs
    ) {
      byKind[cols.kind[i]!]!++;
    }
  }
  const counts: Record<string, number> = {};
  byKind.forEach((count, kind) => {
    if (count > 0) {
      counts[opKindName(kind)] = count;
    }
  });
  return counts;
}

function engineBusy(ctx: AnalysisContext): EngineBusyNs {
  const busy = new Float64Array(engineCount);
  for (const device of ctx.devices) {
    for (let e = 0; e < engineCount; e++) {
      busy[e]! += measure(device.byEngine[e]!);
    }
  }
  const out: Record<(typeof engineKeys)[number], number> = {
    compute: 0,
    copyHtoD: 0,
    copyDtoH: 0,
    copyDtoD: 0,
    copyPtoP: 0,
    memset: 0,
  };
  engineKeys.forEach((key, e) => {
    out[key] = busy[e]!;
  });
  return out;
}

function kernelClassBusy(ctx: AnalysisContext): KernelClassBusyNs {
  let computeNs = 0;
  let communicationNs = 0;
  let memoryNs = 0;
  for (const device of ctx.devices) {
    computeNs += measure(device.compute);
    communicationNs += measure(device.communication);
    memoryNs += measure(device.memoryKernels);
  }
  return { computeNs, communicationNs, memoryNs };
}

/**
 * |∪copies ∩ ∪compute| / |∪copies| (HTA's comm/comp overlap with copies as the communication),
 * and HTA's own: |∪communication kernels ∩ ∪compute| / |∪communication kernels|, less the sends
 * and receives of pipeline stages (`communicationSplit`): their time is the schedule's bubble,
 * which no overlap hides.
 */
function overlapMetrics(ctx: AnalysisContext): OverlapMetrics {
  let overlappedNs = 0;
  let copyBusyNs = 0;
  let commNs = 0;
  let commOverlappedNs = 0;
  const perEngine = new Float64Array(engineCount * 2);
  const { collective } = communicationSplit(ctx);
  for (const [slot, device] of ctx.devices.entries()) {
    overlappedNs += intersectionNs(device.copies, device.compute);
    copyBusyNs += measure(device.copies);
    commNs += measure(collective[slot]!);
    commOverlappedNs += intersectionNs(collective[slot]!, device.compute);
    for (const e of [Engine.CopyHtoD, Engine.CopyDtoH, Engine.CopyDtoD, Engine.CopyPtoP]) {
      perEngine[e * 2]! += intersectionNs(device.byEngine[e]!, device.compute);
      perEngine[e * 2 + 1]! += measure(device.byEngine[e]!);
    }
  }
  const ratio = (e: number): number =>
    perEngine[e * 2 + 1]! > 0 ? perEngine[e * 2]! / perEngine[e * 2 + 1]! : 0;
  return {
    all: copyBusyNs > 0 ? overlappedNs / copyBusyNs : 0,
    htoD: ratio(Engine.CopyHtoD),
    dtoH: ratio(Engine.CopyDtoH),
    dtoD: ratio(Engine.CopyDtoD),
    ptoP: ratio(Engine.CopyPtoP),
    overlappedNs,
    copyBusyNs,
    commCompute: commNs > 0 ? commOverlappedNs / commNs : null,
    exposedCommunicationNs: commNs - commOverlappedNs,
  };
}

/** Busy time per stream: the union of the ops that occupy it, clipped to the window. */
function streamBusy(ctx: AnalysisContext): StreamBusy[] {
  const { trace, window, walk } = ctx;
  const spanNs = ctx.gpuToNs - ctx.gpuFromNs;
  const out: StreamBusy[] = [];
  for (const tracks of ctx.tracksOfDevice) {
    for (const track of tracks) {
      let busyNs = 0;
      let opCount = 0;
      let openFrom = 0;
      let openTo = 0;
      for (let p = walk.trackFrom[track]!; p < walk.trackFrom[track + 1]!; p++) {
        if (!occupiesStream(walk.kind[p]!)) {
          continue;
        }
        opCount++;
        const start = Math.max(walk.startNs[p]!, window.fromNs);
        const end = Math.min(walk.endNs[p]!, window.toNs);
        // Ops arrive by start; extend the open interval or close it and open a new one.
        if (start > openTo) {
          busyNs += openTo - openFrom;
          openFrom = start;
          openTo = end;
        } else {
          openTo = Math.max(openTo, end);
        }
      }
      busyNs += openTo - openFrom;
      out.push({
        track,
        label: trackLabels(trace.tracks)[track]!,
        busyNs,
        utilization: spanNs > 0 ? busyNs / spanNs : 0,
        opCount,
      });
    }
  }
  return out;
}
