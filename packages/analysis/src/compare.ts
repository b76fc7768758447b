import type { Trace } from '@streamscope/trace';
import { displayOrder, opKindName, trackLabel } from '@streamscope/trace';
import { analyzeTrace } from './analyze.ts';
import { occupiesStream } from './engines.ts';
import type { Analysis, Comparison, MetricDelta, OpDiff, OpGroupDiff } from './types.ts';

const maxGroups = 100;
const maxDiffs = 50;

/**
 * GPU stream tracks by rank: the k-th stream of the k-th device in display order. Stream ids
 * differ between runs (handles are addresses), so rank is what two runs of one workload share.
 */
function streamRanks(trace: Trace): number[] {
  return displayOrder(trace.tracks).filter((t) => trace.tracks[t]!.kind === 'gpu-stream');
}

/** Stream-occupying ops of one trace grouped by "rank|kind|name", each list in start order. */
function groupOps(trace: Trace): Map<string, number[]> {
  const cols = trace.ops.columns();
  const groups = new Map<string, number[]>();
  streamRanks(trace).forEach((track, rank) => {
    const order = trace.ops.trackOrder(track);
    for (let k = 0; k < order.length; k++) {
      const op = order[k]!;
      const kind = cols.kind[op]!;
      if (!occupiesStream(kind)) {
        continue;
      }
      const key = `${rank}|${kind}|${trace.strings.get(cols.nameId[op]!)}`;
      let list = groups.get(key);
      if (list === undefined) {
        list = [];
        groups.set(key, list);
      }
      list.push(op);
    }
  });
  return groups;
}

/**
 * Matches ops of `a` to ops of `b` by stream rank, kind, name and occurrence order. Returns, per
 * op of `a`, the matching op of `b` or -1 (the compare view aligns the two timelines with it).
 */
export function matchOps(a: Trace, b: Trace): Int32Array {
  const match = new Int32Array(a.ops.count).fill(-1);
  const groupsB = groupOps(b);
  for (const [key, listA] of groupOps(a)) {
    const listB = groupsB.get(key) ?? [];
    const n = Math.min(listA.length, listB.length);
    for (let k = 0; k < n; k++) {
      match[listA[k]!] = listB[k]!;
    }
  }
  return match;
}

/** Run `b` against run `a`: speedup, metric deltas, matched ops and their duration changes. */
export function compareTraces(a: Trace, b: Trace): Comparison {
  const analysisA = analyzeTrace(a);
  const analysisB = analyzeTrace(b);
  const colsA = a.ops.columns();
  const colsB = b.ops.columns();
  const groupsA = groupOps(a);
  const groupsB = groupOps(b);
  const ranksA = streamRanks(a);
  const ranksB = streamRanks(b);
  const originA = analysisA.metrics.gpuFromNs;
  const originB = analysisB.metrics.gpuFromNs;

  const groups: OpGroupDiff[] = [];
  const diffs: OpDiff[] = [];
  let matched = 0;
  let unmatchedA = 0;
  let unmatchedB = 0;
  const keys = new Set([...groupsA.keys(), ...groupsB.keys()]);
  for (const key of keys) {
    const listA = groupsA.get(key) ?? [];
    const listB = groupsB.get(key) ?? [];
    const [rankText, kindText] = key.split('|', 2) as [string, string];
    const name = key.slice(rankText.length + kindText.length + 2);
    const rank = Number(rankText);
    const track = ranksA[rank] ?? ranksB[rank];
    const stream =
      ranksA[rank] !== undefined
        ? trackLabel(a.tracks[ranksA[rank]]!)
        : trackLabel(b.tracks[track!]!);
    const n = Math.min(listA.length, listB.length);
    matched += n;
    unmatchedA += listA.length - n;
    unmatchedB += listB.length - n;
    let totalNsA = 0;
    let totalNsB = 0;
    for (const op of listA) {
      totalNsA += colsA.endNs[op]! - colsA.startNs[op]!;
    }
    for (const op of listB) {
      totalNsB += colsB.endNs[op]! - colsB.startNs[op]!;
    }
    groups.push({
      name,
      kind: opKindName(Number(kindText)),
      stream,
      countA: listA.length,
      countB: listB.length,
      totalNsA,
      totalNsB,
      deltaNs: totalNsB - totalNsA,
    });
    for (let k = 0; k < n; k++) {
      const opA = listA[k]!;
      const opB = listB[k]!;
      const durNsA = colsA.endNs[opA]! - colsA.startNs[opA]!;
      const durNsB = colsB.endNs[opB]! - colsB.startNs[opB]!;
      const startShiftNs = colsB.startNs[opB]! - originB - (colsA.startNs[opA]! - originA);
      keepLargest(diffs, {
        opA,
        opB,
        name,
        stream,
        durNsA,
        durNsB,
        deltaNs: durNsB - durNsA,
        startShiftNs,
      });
    }
  }
  groups.sort((x, y) => Math.abs(y.deltaNs) - Math.abs(x.deltaNs) || x.name.localeCompare(y.name));
  diffs.sort((x, y) => Math.abs(y.deltaNs) - Math.abs(x.deltaNs) || x.opA - y.opA);

  const rulesA = new Set(analysisA.findings.map((f) => f.ruleId));
  const rulesB = new Set(analysisB.findings.map((f) => f.ruleId));
  const makespanNsA = analysisA.metrics.makespanNs;
  const makespanNsB = analysisB.metrics.makespanNs;
  return {
    makespanNsA,
    makespanNsB,
    speedup: makespanNsB > 0 ? makespanNsA / makespanNsB : 0,
    metrics: metricDeltas(analysisA, analysisB),
    matchedOps: matched,
    unmatchedA,
    unmatchedB,
    groups: groups.slice(0, maxGroups),
    largestDiffs: diffs,
    findings: {
      onlyA: [...rulesA].filter((r) => !rulesB.has(r)),
      onlyB: [...rulesB].filter((r) => !rulesA.has(r)),
      both: [...rulesA].filter((r) => rulesB.has(r)),
    },
  };
}

/** Keeps the `maxDiffs` largest |deltaNs| without sorting every matched op. */
function keepLargest(diffs: OpDiff[], diff: OpDiff): void {
  if (diffs.length < maxDiffs) {
    diffs.push(diff);
    return;
  }
  let smallest = 0;
  for (let k = 1; k < diffs.length; k++) {
    if (Math.abs(diffs[k]!.deltaNs) < Math.abs(diffs[smallest]!.deltaNs)) {
      smallest = k;
    }
  }
  if (Math.abs(diff.deltaNs) > Math.abs(diffs[smallest]!.deltaNs)) {
    diffs[smallest] = diff;
  }
}

function metricDeltas(a: Analysis, b: Analysis): MetricDelta[] {
  const ma = a.metrics;
  const mb = b.metrics;
  const rows: [string, MetricDelta['unit'], number, number][] = [
    ['makespan', 'ns', ma.makespanNs, mb.makespanNs],
    ['device busy', 'ns', ma.deviceBusyNs, mb.deviceBusyNs],
    ['device utilization', 'ratio', ma.deviceUtilization, mb.deviceUtilization],
    ['copy/compute overlap', 'ratio', ma.overlap.all, mb.overlap.all],
    ['overlap H2D', 'ratio', ma.overlap.htoD, mb.overlap.htoD],
    ['overlap D2H', 'ratio', ma.overlap.dtoH, mb.overlap.dtoH],
    ['compute busy', 'ns', ma.busyNsByEngine.compute, mb.busyNsByEngine.compute],
    ['H2D busy', 'ns', ma.busyNsByEngine.copyHtoD, mb.busyNsByEngine.copyHtoD],
    ['D2H busy', 'ns', ma.busyNsByEngine.copyDtoH, mb.busyNsByEngine.copyDtoH],
    ['GPU ops', 'count', ma.gpuOpCount, mb.gpuOpCount],
    ['device gaps', 'ns', a.gaps.device.totalNs, b.gaps.device.totalNs],
    ['stream gaps', 'ns', a.gaps.stream.totalNs, b.gaps.stream.totalNs],
    ['launch latency p50', 'ns', ma.launchLatency.all.p50Ns, mb.launchLatency.all.p50Ns],
    ['max kernels at once', 'count', ma.concurrency.maxKernels, mb.concurrency.maxKernels],
  ];
  return rows.map(([name, unit, va, vb]) => ({
    name,
    unit,
    a: va,
    b: vb,
    delta: vb - va,
    ratio: va !== 0 ? vb / va : 0,
  }));
}
