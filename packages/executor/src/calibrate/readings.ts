import { OpKind } from '@streamscope/trace';
import { firstUseCalls } from '@streamscope/simulator';
import {
  firstUseApiNames,
  graphNodeCounts,
  mallocSizes,
  occupancyBlocksPerSm,
  pageableSizes,
  priorityBlockUs,
  priorityLessonProbes,
  queueProbeStreams,
} from './benchmarks.ts';
import type { BenchOp } from './trace-view.ts';
import { TraceView, fitLine, mean, median } from './trace-view.ts';

/** Measured profile values by dotted path ("api.launchKernel"), from one benchmark's trace. */
export type Readings = Record<string, number>;

const GiB = 1024 ** 3;

/** Gaps between consecutive ops of a list: next start − previous end. */
function gaps(ops: readonly BenchOp[]): number[] {
  return ops.slice(1).map((op, i) => op.startNs - ops[i]!.endNs);
}

/** The median of a benchmark's repeated calls, skipping the first (first use of the call). */
function laterCalls(view: TraceView, name: string): number[] {
  return view
    .calls(name)
    .slice(1)
    .map((c) => c.durNs);
}

/**
 * A calibrated value must be a finite number (names the benchmark and value when not); a check
 * of the model that a trace lacks is left out.
 */
function checked(bench: string, values: Readings): Readings {
  const out: Readings = {};
  for (const [key, v] of Object.entries(values)) {
    if (Number.isFinite(v)) {
      out[key] = v;
    } else if (!key.startsWith('check.')) {
      throw new Error(`benchmark ${bench}: no measurement for ${key} in its trace`);
    }
  }
  return out;
}

function launch(view: TraceView): Readings {
  const loop = view.gpu('launch').flatMap((k) => {
    const call = view.callFor(k);
    return call === undefined ? [] : [{ k, call }];
  });
  const host = view.hostOps();
  const hostGaps: number[] = [];
  for (const { call } of loop) {
    const next = host[host.indexOf(call) + 1];
    if (next !== undefined) {
      hostGaps.push(next.startNs - call.endNs);
    }
  }
  // The run's first call (first use of the runtime) hands its kernel over early and goes on
  // long after. The simulator ends a call where it hands its kernel over and adds this to the
  // gap after it: so from the handover (the kernel's start less the usual submit latency) to the
  // next call, less the usual gap between calls.
  const firstKernel = view.gpu('warm')[0];
  const submitNs = median(loop.map(({ k, call }) => k.startNs - call.endNs));
  const hostCallGapNs = mean(hostGaps);
  return {
    firstCallGapNs:
      firstKernel === undefined || host[1] === undefined
        ? Number.NaN
        : host[1].startNs - (firstKernel.startNs - submitNs) - hostCallGapNs,
    // Means, not medians: a loop's time is the sum of its calls, slow ones included.
    'api.launchKernel': mean(loop.map(({ call }) => call.durNs)),
    hostCallGapNs,
    // The kernels are shorter than a launch: each starts on an idle stream, this long after
    // its call returned.
    submitLatencyNs: submitNs,
  };
}

function streamGap(view: TraceView): Readings {
  const kernels = view.gpu('gap');
  return {
    streamGapNs: median(gaps(kernels).slice(1)),
    spinOffsetNs: median(kernels.map((k) => k.durNs - 30_000)),
  };
}

function occupancy(view: TraceView): Readings {
  // Blocks of 8 warps: the last of b blocks on an SM starts holding 8(b − 1) warps. Delay =
  // duration − 100 µs − the one-wave offset; fit delay = perWarp × (warps − start) above it.
  const base = median(view.gpu('wave-1').map((k) => k.durNs));
  const points: [number, number][] = [];
  for (const b of occupancyBlocksPerSm) {
    const delayNs = median(view.gpu(`wave-${b}`).map((k) => k.durNs)) - base;
    points.push([8 * (b - 1), delayNs]);
  }
  const crowded = points.filter(([, d]) => d > 2_000);
  const full = crowded[crowded.length - 1];
  // One crowded point (8 blocks, 56 warps before the last) and the last uncrowded one (4
  // blocks, 24 warps) bound the ramp: it starts at the uncrowded point's warps.
  const startWarps = points.filter(([, d]) => d <= 2_000).reduce((m, [w]) => Math.max(m, w), 0);
  return {
    crowdedStartWarps: startWarps,
    crowdedStartNsPerWarp: full === undefined ? 0 : full[1] / (full[0] - startWarps),
  };
}

function work(view: TraceView): Readings {
  const small = median(view.gpu('work-small').map((k) => k.durNs));
  const large = median(view.gpu('work-large').map((k) => k.durNs));
  const rate = (200_000 - 20_000) / (large - small);
  // A full GPU: 64 warps per SM; alone a block of 50 000 iterations takes 50 000 / rate.
  const full = median(view.gpu('work-full').map((k) => k.durNs));
  const slowdown = full / (50_000 / rate);
  return { workIterationsPerNs: rate, workSaturationWarpsPerSm: 64 / slowdown };
}

function copies(view: TraceView): Readings {
  const MiB64 = 64 * 1024 * 1024;
  const rate = (kind: number): number =>
    median(
      view
        .gpuOfKind(kind)
        .filter((o) => o.bytes === MiB64)
        .map((o) => (o.bytes / o.durNs) * 1e9),
    );
  const small = (kind: number): number[] =>
    view
      .gpuOfKind(kind)
      .filter((o) => o.bytes === 4096)
      .map((o) => o.durNs);
  return {
    'copyBandwidthBytesPerS.htodPinned': rate(OpKind.CopyHtoD),
    'copyBandwidthBytesPerS.dtohPinned': rate(OpKind.CopyDtoH),
    'copyBandwidthBytesPerS.dtod': rate(OpKind.CopyDtoD),
    memsetBytesPerS: rate(OpKind.Memset),
    copyFixedNs: median([...small(OpKind.CopyHtoD), ...small(OpKind.CopyDtoH)]),
  };
}

function copyEngines(view: TraceView): Readings {
  // Three 16 MiB copies one way, issued together: running one after another on one engine
  // they overlap by nothing; on engines of their own they would overlap almost entirely.
  const h2d = view.gpuOfKind(OpKind.CopyHtoD).filter((o) => o.bytes === 16 * 1024 * 1024);
  let overlapped = 0;
  const engineGaps: number[] = [];
  for (let i = 0; i + 2 < h2d.length; i += 3) {
    const trio = h2d.slice(i, i + 3).sort((a, b) => a.startNs - b.startNs);
    for (let k = 1; k < 3; k++) {
      if (trio[k]!.startNs < trio[k - 1]!.endNs - 1_000) {
        overlapped++;
      }
      engineGaps.push(trio[k]!.startNs - trio[k - 1]!.endNs);
    }
  }
  // 32 MiB each way at once, against each direction alone (its 16 MiB copies above after the
  // first round, doubled).
  const aloneNs = (kind: number): number =>
    2 *
    median(
      view
        .gpuOfKind(kind)
        .filter((o) => o.bytes === 16 * 1024 * 1024)
        .slice(3)
        .map((o) => o.durNs),
    );
  const duplexOf = (kind: number): number =>
    Math.min(
      1,
      median(
        view
          .gpuOfKind(kind)
          .filter((o) => o.bytes === 32 * 1024 * 1024)
          .map((o) => aloneNs(kind) / o.durNs),
      ),
    );
  return {
    // Copies one way took turns: one engine per direction serves cudaMemcpyAsync.
    memcpyEnginesPerDirection: overlapped === 0 ? 1 : 2,
    copyEngineGapNs: median(engineGaps),
    duplexFactor: duplexOf(OpKind.CopyHtoD),
    duplexFactorDtoh: duplexOf(OpKind.CopyDtoH),
  };
}

function pageable(view: TraceView): Readings {
  const big = pageableSizes.filter((b) => b > 1024 * 1024);
  const rate = (kind: number): number =>
    median(
      view
        .gpuOfKind(kind)
        .filter((o) => o.pageable && big.includes(o.bytes))
        .map((o) => (o.bytes / o.durNs) * 1e9),
    );
  const lead: number[] = [];
  const tail: number[] = [];
  let chunk = 0;
  for (const o of view.gpuOfKind(OpKind.CopyHtoD).filter((x) => x.pageable)) {
    const call = view.callFor(o);
    if (call === undefined) {
      continue;
    }
    if (o.startNs >= call.endNs) {
      // Staged whole before the engine started: at most one chunk.
      chunk = Math.max(chunk, o.bytes);
    } else if (o.bytes <= 16 * 1024 * 1024) {
      lead.push(o.startNs - call.startNs);
    }
  }
  for (const o of view.gpuOfKind(OpKind.CopyDtoH).filter((x) => x.pageable)) {
    const call = view.callFor(o);
    if (call !== undefined && o.bytes >= chunk && o.bytes <= 16 * 1024 * 1024) {
      tail.push(call.endNs - o.endNs);
    }
  }
  const chunkBytes = chunk > 0 ? chunk : Number.NaN;
  return {
    'copyBandwidthBytesPerS.htodPageable': rate(OpKind.CopyHtoD),
    'copyBandwidthBytesPerS.dtohPageable': rate(OpKind.CopyDtoH),
    'pageable.chunkBytes': chunkBytes,
    // The first chunk staged before the engine starts (to the device), the last one copied out
    // after it ends (to the host).
    'pageable.htodStagingBytesPerS': (chunkBytes / median(lead)) * 1e9,
    'pageable.dtohStagingBytesPerS': (chunkBytes / median(tail)) * 1e9,
  };
}

function malloc(view: TraceView): Readings {
  const mallocs = view.calls('cudaMalloc');
  const frees = view.calls('cudaFree');
  const n = mallocSizes.length;
  // Rounds 2 and 3 on an idle device give the cost against size (the first pays first use).
  const pts = (calls: BenchOp[]): [number, number][] =>
    calls.slice(n, 3 * n).map((c, i) => [mallocSizes[i % n]! / GiB, c.durNs]);
  const m = fitLine(pts(mallocs));
  const f = fitLine(pts(frees));
  // Each call behind a running 500 µs kernel: one that waits for the device ends after it.
  const waits = (calls: BenchOp[], kernel: string): number => {
    const ks = view.gpu(kernel);
    return calls.slice(3 * n, 3 * n + 3).filter((c, i) => c.endNs > (ks[i]?.endNs ?? Infinity))
      .length;
  };
  // Then a scratch buffer in a loop (malloc, memset, kernel, free): each call's own time, after
  // the kernel it waited for where it waited.
  const uses = view.gpu('use');
  const loopMallocs = mallocs.slice(3 * n + 3).map((c) => c.durNs);
  const loopFrees = frees
    .slice(3 * n + 3)
    .map((c, i) => c.endNs - Math.max(c.startNs, uses[i]?.endNs ?? c.startNs));
  const loopGiB = mallocSizes[2] / GiB;
  const pinned = view.calls('cudaMallocHost').map((c) => c.durNs);
  return {
    'api.malloc': Math.max(0, median(loopMallocs) - loopGiB * Math.max(0, m.slope)),
    'api.mallocPerGiB': Math.max(0, m.slope),
    'api.free': Math.max(0, median(loopFrees) - loopGiB * Math.max(0, f.slope)),
    'api.freePerGiB': Math.max(0, f.slope),
    mallocSyncs: waits(mallocs, 'before-malloc') > 0 ? 1 : 0,
    freeSyncs: waits(frees, 'before-free') > 0 ? 1 : 0,
    // 64 MiB pinned per call: all of it is the pinning rate's.
    'api.pinBytesPerS': ((64 * 1024 * 1024) / median(pinned)) * 1e9,
    'api.mallocAsync': median(laterCalls(view, 'cudaMallocAsync')),
  };
}

function graph(view: TraceView): Readings {
  const launches = view.calls('cudaGraphLaunch');
  const inst = view.calls('cudaGraphInstantiate');
  const host = view.hostOps();
  const perLaunch: [number, number][] = [];
  const first: number[] = [];
  const callGaps: number[] = [];
  // Ten launches per node count; the first uploads the graph, so the cost per launch and the
  // gap after it are read from the third launch on. (The 20-node series after them are checks
  // of the model, not inputs of the fit.)
  graphNodeCounts.forEach((nodes, g) => {
    const mine = launches.slice(g * 10, g * 10 + 10);
    for (const c of mine.slice(2)) {
      perLaunch.push([nodes, c.durNs]);
      const next = host[host.indexOf(c) + 1];
      if (next !== undefined) {
        callGaps.push(next.startNs - c.endNs);
      }
    }
    first.push(mine[0]!.durNs - median(mine.slice(2).map((c) => c.durNs)));
  });
  // Means, not medians, as for kernel launches: a run of launches takes the sum of its calls.
  const byNodes = (nodes: number): number =>
    mean(perLaunch.filter(([n]) => n === nodes).map(([, d]) => d));
  const line = fitLine(graphNodeCounts.map((n) => [n, byNodes(n)]));
  // The first instantiate pays first use; the next ones against their node counts.
  const instLine = fitLine(
    inst.slice(1, graphNodeCounts.length).map((c, i) => [graphNodeCounts[i + 1]!, c.durNs]),
  );
  // Node after node within one launch of the largest graph.
  const nodes = view.gpu(`node-${graphNodeCounts[graphNodeCounts.length - 1]}`);
  const within: number[] = [];
  for (let i = 1; i < nodes.length; i++) {
    if (nodes[i]!.correlationId === nodes[i - 1]!.correlationId) {
      within.push(nodes[i]!.startNs - nodes[i - 1]!.endNs);
    }
  }
  // 20 nodes with the GPU waiting for each launch, and with the host running ahead.
  const g20 = launches.slice(graphNodeCounts.length * 10);
  const idle20 = median(g20.slice(2, 10).map((c) => c.durNs));
  const busy20 = median(g20.slice(12, 20).map((c) => c.durNs));
  const named20 = median(g20.slice(22, 30).map((c) => c.durNs));
  // Launches of the largest graph queued behind one another: from one's last node to the next
  // one's first, the device's own cost of starting a graph.
  const launchGaps: number[] = [];
  for (let i = 1; i < nodes.length; i++) {
    if (nodes[i]!.correlationId !== nodes[i - 1]!.correlationId) {
      launchGaps.push(nodes[i]!.startNs - nodes[i - 1]!.endNs);
    }
  }
  return {
    graphLaunchGapNs: median(launchGaps),
    // From a launch's return to the next call (the next launch, or the sync after the last).
    graphCallGapNs: mean(callGaps),
    'check.graphLaunch20IdleNs': idle20,
    'check.graphLaunch20BusyNs': busy20,
    'check.graphLaunchNamed20Ns': named20,
    'api.graphLaunch': Math.max(0, line.intercept),
    'api.graphLaunchPerNode': line.slope,
    'api.graphInstantiate': Math.max(0, instLine.intercept),
    'api.graphInstantiatePerNode': instLine.slope,
    graphNodeGapNs: median(within),
    graphFirstLaunchExtraNs: median(first),
  };
}

function priority(view: TraceView): Readings {
  // How long after its call a high-priority kernel starts on a GPU full of blocks lasting d:
  // it waits for running blocks to end, wherever in their life it arrived, so the wait is a
  // share of d (a line through 0: Σxy / Σx²). Only the lesson-shaped probes sample that: six
  // phases of 100 µs blocks. The probes at one phase each (1.5 d after a bulk kernel's call,
  // and the single block) land where the bulk's second wave is held on the traced GPU and no
  // block retires for up to ~90 µs: kept as checks, they read about half of d. A probe waits
  // from its call's end or the end of the kernel before it on its stream, whichever is later
  // (only the SMs hold it then).
  const waits = (name: string, blockNs: number): [number, number][] => {
    const pts: [number, number][] = [];
    for (const k of view.gpu(name)) {
      const call = view.callFor(k);
      if (call !== undefined) {
        const before = view.ops.filter(
          (o) => !o.host && o.track === k.track && o.endNs <= k.startNs && o !== k,
        );
        const readyNs = Math.max(call.endNs, ...before.map((o) => o.endNs));
        pts.push([blockNs, Math.max(0, k.startNs - readyNs)]);
      }
    }
    return pts;
  };
  const share = (pts: readonly [number, number][]): number | undefined => {
    const sxy = pts.reduce((s, [x, y]) => s + x * y, 0);
    const sxx = pts.reduce((s, [x]) => s + x * x, 0);
    return sxx > 0 ? sxy / sxx : undefined;
  };
  const phased = Array.from({ length: priorityLessonProbes }, (_, i) =>
    waits(`urgent-lesson-${i}`, 100_000),
  ).flat();
  const onePhase = [
    ...priorityBlockUs.flatMap((us) => waits(`urgent-high-${us}`, us * 1000)),
    ...waits('urgent-high-one', 100_000),
  ];
  const readings: Readings = {};
  const phasedShare = share(phased);
  if (phasedShare !== undefined) {
    readings['priorityWaitShare'] = phasedShare;
  }
  const onePhaseShare = share(onePhase);
  if (onePhaseShare !== undefined) {
    readings['check.priorityOnePhaseWaitShare'] = onePhaseShare;
  }
  return readings;
}

function queues(view: TraceView): Readings {
  // The first stream whose probe waited for stream 0's long kernel shares its queue; 0: none.
  const longs = view.gpu('long');
  for (let j = 1; j <= queueProbeStreams; j++) {
    const probe = view.gpu(`probe-${j}`)[0];
    const long = longs[j - 1];
    if (probe !== undefined && long !== undefined && probe.startNs >= long.endNs) {
      return { connections: j };
    }
  }
  return { connections: 0 };
}

function events(view: TraceView): Readings {
  const producers = view.gpu('producer');
  const consumers = view.gpu('consumer');
  const records = view.gpuOfKind(OpKind.EventRecord);
  const recordGaps: number[] = [];
  const waitGaps: number[] = [];
  producers.forEach((p, i) => {
    const r = records.find((x) => x.startNs >= p.endNs);
    const c = consumers[i];
    if (r !== undefined && c !== undefined) {
      recordGaps.push(r.startNs - p.endNs);
      waitGaps.push(c.startNs - r.endNs);
    }
  });
  return {
    'api.eventRecord': median(laterCalls(view, 'cudaEventRecord')),
    'api.streamWait': median(laterCalls(view, 'cudaStreamWaitEvent')),
    eventRecordGapNs: median(recordGaps.slice(1)),
    eventWaitGapNs: median(waitGaps.slice(1)),
  };
}

function engineGap(view: TraceView): Readings {
  const toCompute: number[] = [];
  const toCopy: number[] = [];
  const kernels = view.gpu('after-copy');
  const h2d = view.gpuOfKind(OpKind.CopyHtoD);
  const d2h = view.gpuOfKind(OpKind.CopyDtoH);
  kernels.forEach((k, i) => {
    if (i > 0 && h2d[i] !== undefined && d2h[i] !== undefined) {
      toCompute.push(k.startNs - h2d[i].endNs);
      toCopy.push(d2h[i].startNs - k.endNs);
    }
  });
  return {
    'crossEngineGapNs.toCompute': median(toCompute),
    'crossEngineGapNs.toCopy': median(toCopy),
    'api.memcpy': median(laterCalls(view, 'cudaMemcpyAsync')),
  };
}

function firstUse(view: TraceView): Readings {
  // Each kind's first call less the median of the same call in the later rounds.
  const out: Readings = {};
  for (const call of firstUseCalls) {
    const calls = view.calls(firstUseApiNames[call]);
    if (calls.length >= 2) {
      const later = median(calls.slice(1).map((c) => c.durNs));
      out[`firstUseNs.${call}`] = Math.max(0, calls[0]!.durNs - later);
    }
  }
  return out;
}

const readers: Readonly<Record<string, (view: TraceView) => Readings>> = {
  launch,
  'stream-gap': streamGap,
  occupancy,
  work,
  copies,
  'copy-engines': copyEngines,
  pageable,
  malloc,
  graph,
  priority,
  queues,
  events,
  'engine-gap': engineGap,
  'first-use': firstUse,
};

/** What one benchmark's trace says; throws naming the benchmark and the value it lacks. */
export function readBenchmark(
  name: string,
  trace: ConstructorParameters<typeof TraceView>[0],
): Readings {
  const reader = readers[name];
  if (reader === undefined) {
    throw new Error(`no reading for benchmark ${name}`);
  }
  return checked(name, reader(new TraceView(trace)));
}
