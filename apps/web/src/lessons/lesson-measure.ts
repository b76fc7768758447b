import type { Trace } from '@streamscope/trace';
import { OpKind, formatDurationNs } from '@streamscope/trace';
import type { LessonFinding } from './lesson-finding.ts';
import type { LessonMeasure } from './lesson-types.ts';

export interface OpLatencies {
  /** The kernels measured, in op order. */
  readonly ops: readonly number[];
  /** Per op: GPU end − start of the host call that launched it, in ns. */
  readonly latenciesNs: readonly number[];
  readonly meanNs: number;
  readonly maxNs: number;
}

/**
 * Latency of each kernel named `measure.namePrefix…`: from the start of the API call that
 * launched it (joined by correlation id) to the kernel's end. Kernels with no call are skipped.
 */
export function opLatencies(trace: Trace, measure: LessonMeasure): OpLatencies {
  const cols = trace.ops.columns();
  const ops: number[] = [];
  const latenciesNs: number[] = [];
  for (let i = 0; i < cols.count; i++) {
    if (cols.kind[i] !== OpKind.Kernel || cols.correlationId[i] === 0) {
      continue;
    }
    if (!trace.name(cols.nameId[i]!).startsWith(measure.namePrefix)) {
      continue;
    }
    let callStartNs = Infinity;
    for (const j of trace.ops.findByCorrelation(cols.correlationId[i]!)) {
      if (j !== i && trace.tracks[cols.track[j]!]?.kind === 'host-thread') {
        callStartNs = Math.min(callStartNs, cols.startNs[j]!);
      }
    }
    if (callStartNs === Infinity) {
      continue;
    }
    ops.push(i);
    latenciesNs.push(cols.endNs[i]! - callStartNs);
  }
  const sum = latenciesNs.reduce((a, b) => a + b, 0);
  return {
    ops,
    latenciesNs,
    meanNs: latenciesNs.length > 0 ? sum / latenciesNs.length : 0,
    maxNs: latenciesNs.reduce((a, b) => Math.max(a, b), 0),
  };
}

/** The measured kernels' latencies before and after, as a finding pointing at the slower side. */
export function latencyFinding(
  measure: LessonMeasure,
  before: OpLatencies,
  after: OpLatencies,
): LessonFinding {
  const side = before.meanNs >= after.meanNs ? 'before' : 'after';
  return {
    key: `measure:${measure.namePrefix}`,
    tone: 'change',
    side,
    source: 'measure:latency',
    title: `${measure.label[0]?.toUpperCase() ?? ''}${measure.label.slice(1)}`,
    message:
      `${before.ops.length} kernels took ${formatDurationNs(before.meanNs)} on average from launch call to end ` +
      `(worst ${formatDurationNs(before.maxNs)}) before, and ${formatDurationNs(after.meanNs)} ` +
      `(worst ${formatDurationNs(after.maxNs)}) after over ${after.ops.length} kernels.`,
    opIndices: side === 'before' ? before.ops : after.ops,
  };
}
