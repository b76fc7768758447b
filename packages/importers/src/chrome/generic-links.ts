/**
 * Launch links in a Chrome trace that no profiler-specific mapping reads: a host event and a GPU
 * event that carry the same correlation id (`args.correlation_id` in XLA profiles of JAX and
 * TensorFlow 2, `args.correlation` elsewhere) are a launch and what it launched. The host event
 * becomes an API call, and the GPU track moves to the process of the calls that launched its
 * work (the builder joins calls to GPU ops by process and correlation id, as for kineto).
 */
export interface GenericLinkPlan {
  /** Per staged event: 1 when it is a host event that launched a GPU event. */
  readonly launches: Uint8Array;
  /** Per track: the process its GPU work belongs to, or -1 to keep its own. */
  readonly ownerOfTrack: Int32Array;
}

/**
 * Plans the links of `n` staged events: `corr[i]` is event i's correlation id (-1: none),
 * `track[i]` its track; `gpu(t)` says whether track t is a GPU stream and `procOf(t)` which process it is of.
 */
export function planGenericLinks(
  n: number,
  corr: Float64Array,
  track: Uint32Array,
  trackCount: number,
  gpu: (t: number) => boolean,
  procOf: (t: number) => number,
): GenericLinkPlan {
  const launches = new Uint8Array(n);
  const ownerOfTrack = new Int32Array(trackCount).fill(-1);
  const gpuIds = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (corr[i]! >= 0 && gpu(track[i]!)) {
      gpuIds.add(corr[i]!);
    }
  }
  if (gpuIds.size === 0) {
    return { launches, ownerOfTrack };
  }
  // The first host event of each id that a GPU event has is its launch.
  const launcherProc = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const id = corr[i]!;
    if (id >= 0 && !gpu(track[i]!) && gpuIds.has(id) && !launcherProc.has(id)) {
      launcherProc.set(id, procOf(track[i]!));
      launches[i] = 1;
    }
  }
  for (let i = 0; i < n; i++) {
    const t = track[i]!;
    if (ownerOfTrack[t] === -1 && gpu(t)) {
      const proc = launcherProc.get(corr[i]!);
      if (proc !== undefined) {
        ownerOfTrack[t] = proc;
      }
    }
  }
  return { launches, ownerOfTrack };
}
