import type { Analysis, Comparison } from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';
import { OpKind, formatDurationNs, isCopyKind, opKindName } from '@streamscope/trace';
import type { ExplainSide, LessonFinding, LessonSideName } from './lesson-finding.ts';
import { maxOpsPerFinding, minTimeShare, plural } from './lesson-finding.ts';

export function copyOps(trace: Trace, kindName?: string): number[] {
  const cols = trace.ops.columns();
  const ops: number[] = [];
  for (let i = 0; i < cols.count && ops.length < maxOpsPerFinding; i++) {
    const kind = cols.kind[i]!;
    if (isCopyKind(kind) && (kindName === undefined || opKindName(kind) === kindName)) {
      ops.push(i);
    }
  }
  return ops;
}

function kernelOps(trace: Trace): number[] {
  const cols = trace.ops.columns();
  const ops: number[] = [];
  for (let i = 0; i < cols.count && ops.length < maxOpsPerFinding; i++) {
    if (cols.kind[i] === OpKind.Kernel) {
      ops.push(i);
    }
  }
  return ops;
}

/** ns during which at least two kernels ran at once. */
function concurrentKernelNs(analysis: Analysis): number {
  return analysis.metrics.concurrency.kernelNsAtLevel.reduce(
    (sum, ns, level) => (level >= 2 ? sum + ns : sum),
    0,
  );
}

export function concurrencyDifference(before: ExplainSide, after: ExplainSide): LessonFinding[] {
  const cb = before.analysis.metrics.concurrency;
  const ca = after.analysis.metrics.concurrency;
  const nsBefore = concurrentKernelNs(before.analysis);
  const nsAfter = concurrentKernelNs(after.analysis);
  const scaleNs = Math.max(before.analysis.metrics.makespanNs, 1);
  if (cb.maxKernels === ca.maxKernels && Math.abs(nsBefore - nsAfter) < scaleNs * minTimeShare) {
    return [];
  }
  const side: LessonSideName = nsAfter >= nsBefore ? 'after' : 'before';
  return [
    {
      key: 'kernel-concurrency',
      tone: 'change',
      side,
      source: 'metric:concurrency',
      title: 'Kernels running at once',
      message:
        `At most ${plural(cb.maxKernels, 'kernel')} ran at once before, with two or more together for ` +
        `${formatDurationNs(nsBefore)}; at most ${ca.maxKernels} after, together for ${formatDurationNs(nsAfter)}.`,
      opIndices: kernelOps((side === 'after' ? after : before).trace),
    },
  ];
}

/** The op groups (name, kind, stream) whose total time changed most, pointing at their ops. */
export function groupDifferences(comparison: Comparison, scaleNs: number): LessonFinding[] {
  const out: LessonFinding[] = [];
  for (const group of comparison.groups) {
    if (out.length >= 2) {
      break;
    }
    if (Math.abs(group.deltaNs) < scaleNs * minTimeShare) {
      break;
    }
    if (group.countA === 0 || group.countB === 0) {
      // Ops that moved to another stream: the concurrency and idle findings tell that story.
      continue;
    }
    const side: LessonSideName = 'before';
    const ops = comparison.largestDiffs
      .filter((d) => d.name === group.name && d.stream === group.stream)
      .map((d) => d.opA)
      .slice(0, maxOpsPerFinding);
    const change = group.deltaNs < 0 ? 'less' : 'more';
    out.push({
      key: `group:${group.stream}|${group.kind}|${group.name}`,
      tone: 'change',
      side,
      source: 'compare:groups',
      title: `${group.name} (${group.kind}) on ${group.stream}`,
      message:
        `${plural(group.countA, 'op')} took ${formatDurationNs(group.totalNsA)} in total before; ` +
        `${plural(group.countB, 'op')} took ${formatDurationNs(group.totalNsB)} after ` +
        `(${formatDurationNs(Math.abs(group.deltaNs))} ${change}).`,
      opIndices: ops,
    });
  }
  return out;
}
