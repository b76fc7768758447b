import type { Trace } from '@streamscope/trace';
import { OpFlag, OpKind, isCopyKind, isSyncKind } from '@streamscope/trace';

/** What `streamscope import --summary` prints: counts of GPU operations as the profiler recorded them. */
export interface ImportSummary {
  readonly format: string;
  readonly producer: string;
  /**
   * GPUs with a stream in the trace: a kineto trace lists every GPU of the machine in its
   * deviceProperties, the ones its program never used too.
   */
  readonly devices: number;
  /** Distinct (process, device, context, stream) among GPU tracks; "no stream" sync lanes are not streams. */
  readonly gpuStreams: number;
  readonly hostThreads: number;
  readonly counts: {
    readonly kernel: number;
    readonly memcpy: number;
    readonly memset: number;
    readonly sync: number;
    /** Graph launches traced as one record each (their kernels are not counted as kernels). */
    readonly graph: number;
    /** cudaEventRecord as the GPU ran it. */
    readonly event: number;
    /** Host functions, allocations, frees and host work: the ops none of the others count. */
    readonly other: number;
    readonly api: number;
    /** NVTX and other ranges: not ops (every other count adds up to the trace's op count). */
    readonly range: number;
  };
  readonly copyBytes: {
    readonly HtoD: number;
    readonly DtoH: number;
    readonly DtoD: number;
    readonly PtoP: number;
  };
  /** Copies and memsets whose size the source did not record: they add 0 to `copyBytes`. */
  readonly unknownSizeOps: number;
  readonly spanNs: number;
  readonly warnings: readonly string[];
}

export function importSummary(trace: Trace): ImportSummary {
  const ops = trace.ops.columns();
  const counts = {
    kernel: 0,
    memcpy: 0,
    memset: 0,
    sync: 0,
    graph: 0,
    event: 0,
    other: 0,
    api: 0,
    range: trace.ranges.count,
  };
  const copyBytes = { HtoD: 0, DtoH: 0, DtoD: 0, PtoP: 0 };
  let unknownSizeOps = 0;
  for (let i = 0; i < ops.count; i++) {
    const kind = ops.kind[i]!;
    if ((ops.flags[i]! & OpFlag.BytesUnknown) !== 0) {
      unknownSizeOps++;
    }
    if (kind === OpKind.Kernel) {
      counts.kernel++;
    } else if (isCopyKind(kind)) {
      counts.memcpy++;
      const bytes = ops.bytes[i]!;
      if (kind === OpKind.CopyHtoD) {
        copyBytes.HtoD += bytes;
      } else if (kind === OpKind.CopyDtoH) {
        copyBytes.DtoH += bytes;
      } else if (kind === OpKind.CopyDtoD) {
        copyBytes.DtoD += bytes;
      } else if (kind === OpKind.CopyPtoP) {
        copyBytes.PtoP += bytes;
      }
    } else if (kind === OpKind.Memset) {
      counts.memset++;
    } else if (isSyncKind(kind)) {
      counts.sync++;
    } else if (kind === OpKind.GraphLaunch) {
      counts.graph++;
    } else if (kind === OpKind.ApiCall) {
      counts.api++;
    } else if (kind === OpKind.EventRecord) {
      counts.event++;
    } else {
      counts.other++;
    }
  }
  return {
    format: trace.meta.sourceFormat,
    producer: trace.meta.producer,
    devices: new Set(trace.tracks.flatMap((t) => (t.kind === 'gpu-stream' ? [t.deviceId] : [])))
      .size,
    gpuStreams: countStreams(trace),
    hostThreads: trace.tracks.filter((t) => t.kind === 'host-thread').length,
    counts,
    copyBytes,
    unknownSizeOps,
    spanNs: spanOf(trace),
    warnings: trace.meta.warnings ?? [],
  };
}

/** CUPTI's stream id for "no stream" (context and event synchronizations). */
const noStream = 0xffffffff;

/** GPU streams as the profiler counts them: each (process, device, context, stream) once. */
function countStreams(trace: Trace): number {
  const streams = new Set<string>();
  for (const t of trace.tracks) {
    if (t.kind === 'gpu-stream' && t.streamId !== noStream) {
      streams.add(`${t.pid},${t.deviceId},${t.contextId},${t.streamId}`);
    }
  }
  return streams.size;
}

/** From the earliest start to the latest end of ops and ranges, in ns. */
function spanOf(trace: Trace): number {
  const ops = trace.ops.columns();
  const ranges = trace.ranges.columns();
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < ops.count; i++) {
    min = Math.min(min, ops.startNs[i]!);
    max = Math.max(max, ops.endNs[i]!);
  }
  for (let i = 0; i < ranges.count; i++) {
    min = Math.min(min, ranges.startNs[i]!);
    max = Math.max(max, ranges.endNs[i]!);
  }
  return max >= min ? max - min : 0;
}
