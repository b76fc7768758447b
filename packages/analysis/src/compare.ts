import type { Trace } from '@streamscope/trace';
import { displayOrder, opKindName, trackLabels } from '@streamscope/trace';
import { analyzeTrace } from './analyze.ts';
import { occupiesStream } from './engines.ts';
import { sortFloat64 } from './radix-sort.ts';
import type {
  Analysis,
  AnalysisOptions,
  Comparison,
  MetricDelta,
  NameTotalDiff,
  OpDiff,
  OpGroupDiff,
} from './types.ts';

const maxGroups = 100;
const maxDiffs = 50;

/**
 * GPU stream tracks by rank: the k-th stream of the k-th device in display order. Stream ids
 * differ between runs (handles are addresses), so rank is what two runs of one workload share.
 */
function streamRanks(trace: Trace): number[] {
  return displayOrder(trace.tracks).filter((t) => trace.tracks[t]!.kind === 'gpu-stream');
}

/**
 * Stream-occupying ops of one trace grouped by "rank|kind|name", each group in start order.
 * Ops get a numeric group id through one Map lookup each (name id, rank and kind packed into a
 * safe integer); strings are made per group, never per op.
 */
function groupOps(trace: Trace): Map<string, Uint32Array> {
  const cols = trace.ops.columns();
  const ranks = streamRanks(trace);
  const groupOf = new Map<number, number>();
  const keys: string[] = [];
  const sizes: number[] = [];
  const opGroup = new Int32Array(cols.count).fill(-1);
  ranks.forEach((track, rank) => {
    const order = trace.ops.trackOrder(track);
    for (let k = 0; k < order.length; k++) {
      const op = order[k]!;
      const kind = cols.kind[op]!;
      if (!occupiesStream(kind)) {
        continue;
      }
      // rank < 2^16 and kind < 32 fit 21 bits; name ids < 2^32: below 2^53, exact.
      const packed = cols.nameId[op]! * 2 ** 21 + rank * 32 + kind;
      let group = groupOf.get(packed);
      if (group === undefined) {
        group = keys.length;
        groupOf.set(packed, group);
        keys.push(`${rank}|${kind}|${trace.strings.get(cols.nameId[op]!)}`);
        sizes.push(0);
      }
      opGroup[op] = group;
      sizes[group]!++;
    }
  });
  const lists = sizes.map((n) => new Uint32Array(n));
  const fill = new Int32Array(sizes.length);
  for (const track of ranks) {
    const order = trace.ops.trackOrder(track);
    for (let k = 0; k < order.length; k++) {
      const group = opGroup[order[k]!]!;
      if (group >= 0) {
        lists[group]![fill[group]!++] = order[k]!;
      }
    }
  }
  return new Map(keys.map((key, g) => [key, lists[g]!]));
}

const none = new Uint32Array(0);

/**
 * Matches ops of `a` to ops of `b` by stream rank, kind, name and occurrence order. Returns, per
 * op of `a`, the matching op of `b` or -1 (the compare view aligns the two timelines with it).
 */
export function matchOps(a: Trace, b: Trace): Int32Array {
  const match = new Int32Array(a.ops.count).fill(-1);
  const groupsB = groupOps(b);
  for (const [key, listA] of groupOps(a)) {
    const listB = groupsB.get(key) ?? none;
    const n = Math.min(listA.length, listB.length);
    for (let k = 0; k < n; k++) {
      match[listA[k]!] = listB[k]!;
    }
  }
  return match;
}

/**
 * Run `b` against run `a`: speedup, metric deltas, matched ops and their duration changes, and
 * totals per op name over all streams. `options` apply to both analyses (e.g. `stepPattern`).
 */
export function compareTraces(
  a: Trace,
  b: Trace,
  options: Partial<AnalysisOptions> = {},
): Comparison {
  const analysisA = analyzeTrace(a, undefined, options);
  const analysisB = analyzeTrace(b, undefined, options);
  const colsA = a.ops.columns();
  const colsB = b.ops.columns();
  const groupsA = groupOps(a);
  const groupsB = groupOps(b);
  const ranksA = streamRanks(a);
  const ranksB = streamRanks(b);

  const groups: OpGroupDiff[] = [];
  let unmatchedA = 0;
  let unmatchedB = 0;
  // Matched pairs as columns; only the largest differences become objects.
  const pairA: number[] = [];
  const pairB: number[] = [];
  const pairGroup: number[] = [];
  const groupNames: string[] = [];
  const groupStreams: string[] = [];
  const keys = new Set([...groupsA.keys(), ...groupsB.keys()]);
  for (const key of keys) {
    const listA = groupsA.get(key) ?? none;
    const listB = groupsB.get(key) ?? none;
    const [rankText, kindText] = key.split('|', 2) as [string, string];
    const name = key.slice(rankText.length + kindText.length + 2);
    const rank = Number(rankText);
    const trackA = ranksA[rank];
    const stream =
      trackA !== undefined ? trackLabels(a.tracks)[trackA]! : trackLabels(b.tracks)[ranksB[rank]!]!;
    const n = Math.min(listA.length, listB.length);
    unmatchedA += listA.length - n;
    unmatchedB += listB.length - n;
    const totalNsA = totalDurNs(colsA.startNs, colsA.endNs, listA);
    const totalNsB = totalDurNs(colsB.startNs, colsB.endNs, listB);
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
    const g = groupNames.length;
    groupNames.push(name);
    groupStreams.push(stream);
    for (let k = 0; k < n; k++) {
      pairA.push(listA[k]!);
      pairB.push(listB[k]!);
      pairGroup.push(g);
    }
  }
  groups.sort((x, y) => Math.abs(y.deltaNs) - Math.abs(x.deltaNs) || x.name.localeCompare(y.name));
  const names = totalsByName(groups);

  const originA = analysisA.metrics.gpuFromNs;
  const originB = analysisB.metrics.gpuFromNs;
  const absDelta = new Float64Array(pairA.length);
  for (let k = 0; k < pairA.length; k++) {
    const opA = pairA[k]!;
    const opB = pairB[k]!;
    absDelta[k] = Math.abs(
      colsB.endNs[opB]! - colsB.startNs[opB]! - (colsA.endNs[opA]! - colsA.startNs[opA]!),
    );
  }
  const threshold =
    pairA.length > maxDiffs ? sortFloat64(absDelta.slice())[pairA.length - maxDiffs]! : 0;
  const diffs: OpDiff[] = [];
  for (let k = 0; k < pairA.length; k++) {
    if (absDelta[k]! < threshold) {
      continue;
    }
    const opA = pairA[k]!;
    const opB = pairB[k]!;
    const durNsA = colsA.endNs[opA]! - colsA.startNs[opA]!;
    const durNsB = colsB.endNs[opB]! - colsB.startNs[opB]!;
    diffs.push({
      opA,
      opB,
      name: groupNames[pairGroup[k]!]!,
      stream: groupStreams[pairGroup[k]!]!,
      durNsA,
      durNsB,
      deltaNs: durNsB - durNsA,
      startShiftNs: colsB.startNs[opB]! - originB - (colsA.startNs[opA]! - originA),
    });
  }
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
    matchedOps: pairA.length,
    unmatchedA,
    unmatchedB,
    groups: groups.slice(0, maxGroups),
    names: names.slice(0, maxGroups),
    largestDiffs: diffs.slice(0, maxDiffs),
    findings: {
      onlyA: [...rulesA].filter((r) => !rulesB.has(r)),
      onlyB: [...rulesB].filter((r) => !rulesA.has(r)),
      both: [...rulesA].filter((r) => rulesB.has(r)),
    },
  };
}

/** Per kind and name, the groups of every stream added up; largest |deltaNs| first. */
function totalsByName(groups: readonly OpGroupDiff[]): NameTotalDiff[] {
  const byKey = new Map<string, NameTotalDiff>();
  for (const g of groups) {
    const key = `${g.kind}|${g.name}`;
    const seen = byKey.get(key);
    byKey.set(key, {
      name: g.name,
      kind: g.kind,
      countA: (seen?.countA ?? 0) + g.countA,
      countB: (seen?.countB ?? 0) + g.countB,
      totalNsA: (seen?.totalNsA ?? 0) + g.totalNsA,
      totalNsB: (seen?.totalNsB ?? 0) + g.totalNsB,
      deltaNs: (seen?.deltaNs ?? 0) + g.deltaNs,
    });
  }
  return [...byKey.values()].sort(
    (x, y) => Math.abs(y.deltaNs) - Math.abs(x.deltaNs) || x.name.localeCompare(y.name),
  );
}

function totalDurNs(starts: Float64Array, ends: Float64Array, ops: Uint32Array): number {
  let total = 0;
  for (let k = 0; k < ops.length; k++) {
    total += ends[ops[k]!]! - starts[ops[k]!]!;
  }
  return total;
}

/**
 * Whether a run has a figure at all: a ratio over copies needs copies, a latency needs linked
 * launches, a median step needs steps. Left out, such a figure reads 0 and a comparison would show
 * a "change" that nothing measured.
 */
interface Measured {
  readonly copies: boolean;
  readonly htoD: boolean;
  readonly dtoH: boolean;
  readonly comm: boolean;
  readonly launches: boolean;
  readonly steps: boolean;
}

function measured(x: Analysis): Measured {
  const m = x.metrics;
  return {
    copies: m.overlap.copyBusyNs > 0,
    htoD: m.busyNsByEngine.copyHtoD > 0,
    dtoH: m.busyNsByEngine.copyDtoH > 0,
    comm: m.overlap.commCompute !== null,
    launches: m.launchLatency.all.count > 0,
    steps: x.steps.count > 0,
  };
}

/** The metrics both runs have a figure for (see `Measured`), a row each. */
function metricDeltas(a: Analysis, b: Analysis): MetricDelta[] {
  const ma = a.metrics;
  const mb = b.metrics;
  const sa = measured(a);
  const sb = measured(b);
  const both = (key: keyof Measured): boolean => sa[key] && sb[key];
  const rows: [string, MetricDelta['unit'], number, number, boolean][] = [
    ['makespan', 'ns', ma.makespanNs, mb.makespanNs, true],
    ['device busy', 'ns', ma.deviceBusyNs, mb.deviceBusyNs, true],
    ['device utilization', 'ratio', ma.deviceUtilization, mb.deviceUtilization, true],
    ['copy/compute overlap', 'ratio', ma.overlap.all, mb.overlap.all, both('copies')],
    ['overlap H2D', 'ratio', ma.overlap.htoD, mb.overlap.htoD, both('htoD')],
    ['overlap D2H', 'ratio', ma.overlap.dtoH, mb.overlap.dtoH, both('dtoH')],
    ['compute busy', 'ns', ma.kernelClasses.computeNs, mb.kernelClasses.computeNs, true],
    [
      'communication busy',
      'ns',
      ma.kernelClasses.communicationNs,
      mb.kernelClasses.communicationNs,
      true,
    ],
    [
      'exposed communication',
      'ns',
      ma.overlap.exposedCommunicationNs,
      mb.overlap.exposedCommunicationNs,
      true,
    ],
    [
      'comm/compute overlap',
      'ratio',
      ma.overlap.commCompute ?? 0,
      mb.overlap.commCompute ?? 0,
      both('comm'),
    ],
    ['memory kernels busy', 'ns', ma.kernelClasses.memoryNs, mb.kernelClasses.memoryNs, true],
    ['H2D busy', 'ns', ma.busyNsByEngine.copyHtoD, mb.busyNsByEngine.copyHtoD, true],
    ['D2H busy', 'ns', ma.busyNsByEngine.copyDtoH, mb.busyNsByEngine.copyDtoH, true],
    ['GPU ops', 'count', ma.gpuOpCount, mb.gpuOpCount, true],
    ['device gaps', 'ns', a.gaps.device.totalNs, b.gaps.device.totalNs, true],
    ['stream gaps', 'ns', a.gaps.stream.totalNs, b.gaps.stream.totalNs, true],
    [
      'launch latency p50',
      'ns',
      ma.launchLatency.all.p50Ns,
      mb.launchLatency.all.p50Ns,
      both('launches'),
    ],
    ['max kernels at once', 'count', ma.concurrency.maxKernels, mb.concurrency.maxKernels, true],
    ['launch queue full', 'ns', ma.launchQueueFullNs, mb.launchQueueFullNs, true],
    ['steps', 'count', a.steps.count, b.steps.count, true],
    ['median step', 'ns', a.steps.medianStepNs, b.steps.medianStepNs, both('steps')],
  ];
  return rows
    .filter((row) => row[4])
    .map(([name, unit, va, vb]) => ({
      name,
      unit,
      a: va,
      b: vb,
      delta: vb - va,
      ratio: va !== 0 ? vb / va : 0,
    }));
}
