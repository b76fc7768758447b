import { formatDurationNs } from '@streamscope/trace';
import type { Finding } from '../types.ts';
import type { RuleInput } from './rule-input.ts';
import { finding } from './rule-input.ts';

/**
 * Launch→op links longer than the GPU's whole span (`LaunchLatencyMetrics.linksDisagree`): a
 * finding on the data, not on the program. It says why launch latency is left out and which
 * steps took in the mismatch; it points at the ops with the longest links and saves nothing.
 */
export function launchLinksDisagreeRule(input: RuleInput): Finding | undefined {
  const { ctx, metrics, steps } = input;
  const mismatch = metrics.launchLatency.linksDisagree;
  if (mismatch === null) {
    return undefined;
  }
  const skewed =
    steps.skewedSteps.length === 0
      ? ''
      : ` For the same reason ${steps.skewedSteps.join(', ')} ${steps.skewedSteps.length === 1 ? 'spans' : 'span'} longer than the GPU's whole span (step max ${formatDurationNs(steps.maxStepNs)}, median ${formatDurationNs(steps.medianStepNs)}): ${steps.skewedSteps.length === 1 ? 'its' : 'their'} step time is the clock gap, not work; compare steps by GPU busy time.`;
  const ops = linkedOpsByLatency(input);
  return finding(
    'launch-links-disagree',
    'warning',
    'Launch links cannot be real',
    `launch→kernel links in this trace span up to ${formatDurationNs(mismatch.maxNs)} (median ${formatDurationNs(mismatch.p50Ns)}, ${mismatch.impossibleOps} of ${mismatch.linkedOps} linked ops) while the GPU worked ${formatDurationNs(mismatch.gpuSpanNs)}: the host and GPU clocks or correlation ids disagree; launch latency is left out.${skewed}`,
    ops,
    0,
    ctx.options.maxFindingOps,
  );
}

/** Ops with a linked call, the longest link first (as `launchLatencyOfNs`, without blocking). */
function linkedOpsByLatency(input: RuleInput): number[] {
  const { walk } = input.ctx;
  const out: { op: number; ns: number }[] = [];
  for (let p = 0; p < walk.op.length; p++) {
    const apiEndNs = walk.apiEndNs[p]!;
    if (!Number.isNaN(apiEndNs)) {
      out.push({ op: walk.op[p]!, ns: walk.startNs[p]! - apiEndNs });
    }
  }
  return out.sort((a, b) => b.ns - a.ns || a.op - b.op).map((x) => x.op);
}
