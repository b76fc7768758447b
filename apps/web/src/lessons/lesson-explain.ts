import type { Analysis, Comparison, Finding, GapCause } from '@streamscope/analysis';
import { gapCauses } from '@streamscope/analysis';
import { formatDurationNs } from '@streamscope/trace';
import { concurrencyDifference, copyOps, groupDifferences } from './lesson-explain-ops.ts';
import type { ExplainSide, LessonFinding, LessonSideName } from './lesson-finding.ts';
import {
  maxOpsPerFinding,
  minRateChange,
  minTimeShare,
  percent,
  plural,
} from './lesson-finding.ts';

const causeWords: Record<GapCause, string> = {
  'event-wait': 'waiting on an event',
  'legacy-default-stream': 'held by the legacy default stream',
  'engine-busy': 'waiting for a busy engine',
  'host-sync': 'while the host was blocked in a synchronize',
  'sync-copy': 'behind a synchronous or pageable copy',
  'alloc-sync': 'behind cudaMalloc/cudaFree',
  'host-busy': 'while the host was busy',
  'launch-latency': 'waiting out launch latency',
  unknown: 'for no attributed reason',
};

/** Findings of the two analyses side by side: what the change removed, reduced or introduced. */
function ruleDifferences(before: Analysis, after: Analysis): LessonFinding[] {
  const out: LessonFinding[] = [];
  const afterByRule = new Map<string, Finding>();
  for (const f of after.findings) {
    afterByRule.set(f.ruleId, f);
  }
  const beforeRules = new Set<string>();
  for (const f of before.findings) {
    beforeRules.add(f.ruleId);
    const later = afterByRule.get(f.ruleId);
    if (later === undefined) {
      out.push({
        key: `fixed:${f.ruleId}`,
        tone: 'fixed',
        side: 'before',
        source: f.ruleId,
        title: f.title,
        message: `${f.message} (estimated cost ${formatDurationNs(f.estimatedSavingNs)}; the after run no longer has it.)`,
        opIndices: f.opIndices.slice(0, maxOpsPerFinding),
      });
    } else if (later.estimatedSavingNs < f.estimatedSavingNs * (1 - minRateChange)) {
      out.push({
        key: `reduced:${f.ruleId}`,
        tone: 'reduced',
        side: 'before',
        source: f.ruleId,
        title: f.title,
        message: `${f.message} (estimated cost ${formatDurationNs(f.estimatedSavingNs)} before, ${formatDurationNs(later.estimatedSavingNs)} after.)`,
        opIndices: f.opIndices.slice(0, maxOpsPerFinding),
      });
    }
  }
  for (const f of after.findings) {
    if (!beforeRules.has(f.ruleId)) {
      out.push({
        key: `introduced:${f.ruleId}`,
        tone: 'introduced',
        side: 'after',
        source: f.ruleId,
        title: f.title,
        message: `${f.message} (estimated cost ${formatDurationNs(f.estimatedSavingNs)}; the before run did not have it.)`,
        opIndices: f.opIndices.slice(0, maxOpsPerFinding),
      });
    }
  }
  return out;
}

function gapOps(analysis: Analysis, cause: GapCause): number[] {
  const ops: number[] = [];
  for (const gap of [...analysis.gaps.stream.listed, ...analysis.gaps.device.listed]) {
    if (gap.cause !== cause) {
      continue;
    }
    const op = gap.causeOp >= 0 ? gap.causeOp : gap.afterOp;
    if (op >= 0 && !ops.includes(op)) {
      ops.push(op);
    }
    if (ops.length >= maxOpsPerFinding) {
      break;
    }
  }
  return ops;
}

/** Stream idle time by cause: the causes whose total moved by a visible share of the run. */
function gapDifferences(before: Analysis, after: Analysis, scaleNs: number): LessonFinding[] {
  const out: LessonFinding[] = [];
  const b = before.gaps.stream;
  const a = after.gaps.stream;
  for (const cause of gapCauses) {
    const beforeNs = b.nsByCause[cause];
    const afterNs = a.nsByCause[cause];
    if (Math.abs(beforeNs - afterNs) < scaleNs * minTimeShare) {
      continue;
    }
    const side: LessonSideName = beforeNs >= afterNs ? 'before' : 'after';
    out.push({
      key: `gaps:${cause}`,
      tone: 'change',
      side,
      source: `metric:gaps.${cause}`,
      title: `Idle streams ${causeWords[cause]}`,
      message:
        `Streams sat idle ${causeWords[cause]} for ${formatDurationNs(beforeNs)} in ${b.countByCause[cause]} gaps before ` +
        `and ${formatDurationNs(afterNs)} in ${a.countByCause[cause]} gaps after.`,
      opIndices: gapOps(side === 'before' ? before : after, cause),
    });
  }
  return out;
}

function metricDifferences(before: ExplainSide, after: ExplainSide): LessonFinding[] {
  const out: LessonFinding[] = [];
  const mb = before.analysis.metrics;
  const ma = after.analysis.metrics;
  if (mb.overlap.copyBusyNs > 0 && ma.overlap.copyBusyNs > 0) {
    const diff = ma.overlap.all - mb.overlap.all;
    if (Math.abs(diff) >= 0.05) {
      const side: LessonSideName = diff > 0 ? 'after' : 'before';
      out.push({
        key: 'overlap',
        tone: 'change',
        side,
        source: 'metric:overlap',
        title: 'Copy/compute overlap',
        message:
          `${percent(mb.overlap.all)} of copy time overlapped a kernel before ` +
          `(${formatDurationNs(mb.overlap.overlappedNs)} of ${formatDurationNs(mb.overlap.copyBusyNs)}), ` +
          `${percent(ma.overlap.all)} after (${formatDurationNs(ma.overlap.overlappedNs)} of ${formatDurationNs(ma.overlap.copyBusyNs)}).`,
        opIndices: copyOps((side === 'after' ? after : before).trace),
      });
    }
  }
  for (const bw of mb.bandwidth) {
    const later = ma.bandwidth.find((x) => x.kind === bw.kind);
    if (later === undefined || bw.avgGBps <= 0 || later.avgGBps <= 0) {
      continue;
    }
    const ratio = later.avgGBps / bw.avgGBps;
    if (Math.abs(ratio - 1) < minRateChange) {
      continue;
    }
    const side: LessonSideName = ratio > 1 ? 'before' : 'after';
    out.push({
      key: `bandwidth:${bw.kind}`,
      tone: 'change',
      side,
      source: 'metric:bandwidth',
      title: `${bw.kind} bandwidth`,
      message:
        `${plural(bw.count, `${bw.kind} copy`, `${bw.kind} copies`)} averaged ${bw.avgGBps.toFixed(1)} GB/s before; ` +
        `${later.count} averaged ${later.avgGBps.toFixed(1)} GB/s after (${ratio.toFixed(2)}×).`,
      opIndices: copyOps((side === 'after' ? after : before).trace, bw.kind),
    });
  }
  const scaleNs = Math.max(mb.makespanNs, 1);
  const idleBefore = mb.makespanNs - mb.deviceBusyNs;
  const idleAfter = ma.makespanNs - ma.deviceBusyNs;
  if (Math.abs(idleBefore - idleAfter) >= scaleNs * minTimeShare) {
    const side: LessonSideName = idleBefore >= idleAfter ? 'before' : 'after';
    const gaps = (side === 'before' ? before : after).analysis.gaps.device.listed;
    out.push({
      key: 'device-idle',
      tone: 'change',
      side,
      source: 'metric:device-idle',
      title: 'Device idle time',
      message:
        `No engine was busy for ${formatDurationNs(idleBefore)} before (${percent(1 - mb.deviceUtilization)} of the run) ` +
        `and ${formatDurationNs(idleAfter)} after (${percent(1 - ma.deviceUtilization)}).`,
      opIndices: gaps
        .map((g) => g.afterOp)
        .filter((op) => op >= 0)
        .slice(0, maxOpsPerFinding),
    });
  }
  return out;
}

/**
 * What changed between a run with the pitfall and one without it, in words generated from
 * the two analyses and their comparison: rules that stopped or started firing, idle time by
 * cause, overlap, bandwidth, device idle time, and the op groups whose time changed most.
 */
export function explainDifference(
  before: ExplainSide,
  after: ExplainSide,
  comparison: Comparison,
): LessonFinding[] {
  const scaleNs = Math.max(before.analysis.metrics.makespanNs, 1);
  return [
    ...ruleDifferences(before.analysis, after.analysis),
    ...gapDifferences(before.analysis, after.analysis, scaleNs),
    ...metricDifferences(before, after),
    ...concurrencyDifference(before, after),
    ...groupDifferences(comparison, scaleNs),
  ];
}
