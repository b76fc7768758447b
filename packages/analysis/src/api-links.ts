import type { OpColumns, Trace } from '@streamscope/trace';
import { FlowKind, IdNumberMap } from '@streamscope/trace';

interface ApiLinks {
  /** Per op: the host API call that enqueued it, or -1. */
  readonly apiOf: Int32Array;
  /** Per op: the GPU op an API call enqueued, or -1. */
  readonly gpuOfApi: Int32Array;
}

/**
 * Joins host API calls to the GPU ops they enqueued: by ApiToGpu flows where the producer wrote
 * them, otherwise by correlation id within one process (CUPTI's join).
 */
export function linkApiCalls(trace: Trace, cols: OpColumns): ApiLinks {
  const n = cols.count;
  const apiOf = new Int32Array(n).fill(-1);
  const gpuOfApi = new Int32Array(n).fill(-1);
  const flows = trace.flows.columns();
  let linked = 0;
  for (let f = 0; f < flows.count; f++) {
    if (flows.kind[f] !== FlowKind.ApiToGpu) {
      continue;
    }
    const api = flows.fromOp[f]!;
    const gpu = flows.toOp[f]!;
    if (api < n && gpu < n) {
      apiOf[gpu] = api;
      gpuOfApi[api] = gpu;
      linked++;
    }
  }
  if (linked > 0) {
    return { apiOf, gpuOfApi };
  }
  const tracks = trace.tracks;
  const hostByCorrelation = new IdNumberMap();
  for (let i = 0; i < n; i++) {
    const id = cols.correlationId[i]!;
    if (id !== 0 && tracks[cols.track[i]!]?.kind === 'host-thread') {
      hostByCorrelation.set(id, i);
    }
  }
  if (hostByCorrelation.size === 0) {
    return { apiOf, gpuOfApi };
  }
  for (let i = 0; i < n; i++) {
    const id = cols.correlationId[i]!;
    const track = tracks[cols.track[i]!];
    if (id === 0 || track?.kind !== 'gpu-stream') {
      continue;
    }
    const api = hostByCorrelation.get(id);
    if (api !== undefined && tracks[cols.track[api]!]?.pid === track.pid) {
      apiOf[i] = api;
      gpuOfApi[api] = i;
    }
  }
  return { apiOf, gpuOfApi };
}
