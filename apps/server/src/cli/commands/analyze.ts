import path from 'node:path';
import type { Analysis, RuleId, StepMetrics, StepReport } from '@streamscope/analysis';
import { analyzeTrace, gapCauses, ruleIds } from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';
import { formatDurationNs } from '@streamscope/trace';
import type { Command } from '../command.ts';
import { importFile } from '../import-file.ts';
import { UsageError } from '../command.ts';
import { parseFlags } from '../parse-flags.ts';
import { loadTraceFile } from '../../workers/load-trace-file.ts';

const usage = [
  'usage: pnpm streamscope analyze (TRACE.sstrace | FILE) [--json] [--steps [NAME_REGEX]]',
  '                                [--fail-on RULE ...]',
  '',
  '  TRACE.sstrace  a streamscope trace; any other FILE (nsys JSON/SQLite export, Chrome or',
  '                 kineto trace, gzip or not) is imported first',
  '  --json         print one JSON object: metrics, gaps, findings, kernelStats, copyStats, steps',
  '  --steps        print the per-step table: ProfilerStep#N ranges, or the host (NVTX) ranges',
  '                 whose name matches NAME_REGEX (--steps REGEX or --steps=REGEX)',
  '  --fail-on RULE exit 1 when RULE fires (repeatable; "any" for every rule)',
  `  rules: ${ruleIds.join(', ')}`,
].join('\n');

/** How many step rows the text report prints (the JSON has them all). */
const maxPrintedSteps = 200;

/** `streamscope analyze`: metrics, gap causes and rule findings for one trace. */
export const analyzeCommand: Command = {
  name: 'analyze',
  summary: 'Print overlap, gaps and rule findings for a trace',
  usage,
  async run(args, io) {
    const steps = takeStepsFlag(args);
    const flags = parseFlags(steps.rest, { switches: ['json'], repeatable: ['fail-on'] });
    if (flags.positional.length !== 1) {
      throw new UsageError('give exactly one trace or file to analyze');
    }
    const failOn = parseFailOn(flags.values.get('fail-on') ?? []);
    const file = flags.positional[0]!;
    const { trace, warnings } = await readTrace(file);
    for (const warning of warnings) {
      io.err(`warning: ${warning}`);
    }
    const options = steps.pattern === undefined ? {} : { stepPattern: steps.pattern };
    const analysis = analyzeTrace(trace, undefined, options);
    if (flags.switches.has('json')) {
      io.out(JSON.stringify(analysis));
    } else {
      io.out(formatAnalysis(trace, analysis));
      if (steps.given) {
        io.out(formatSteps(analysis.steps));
      }
    }
    const failed = analysis.findings.filter((f) => failOn.has(f.ruleId)).map((f) => f.ruleId);
    if (failed.length > 0) {
      io.err(
        `streamscope analyze: rule${failed.length === 1 ? '' : 's'} fired: ${failed.join(', ')}`,
      );
      return 1;
    }
    return 0;
  },
};

function parseFailOn(values: readonly string[]): Set<RuleId> {
  const out = new Set<RuleId>();
  for (const value of values.flatMap((v) => v.split(','))) {
    if (value === 'any') {
      ruleIds.forEach((r) => out.add(r));
      continue;
    }
    const rule = ruleIds.find((r) => r === value);
    if (rule === undefined) {
      throw new UsageError(`--fail-on: unknown rule '${value}' (rules: ${ruleIds.join(', ')})`);
    }
    out.add(rule);
  }
  return out;
}

/**
 * Takes `--steps`, `--steps=REGEX` or `--steps REGEX` out of `args`. The word after a bare
 * `--steps` is its pattern when another positional (the trace) remains without it, so both
 * `analyze --steps FILE` and `analyze FILE --steps REGEX` read as meant.
 */
export function takeStepsFlag(args: readonly string[]): {
  readonly given: boolean;
  readonly pattern: string | undefined;
  readonly rest: string[];
} {
  let given = false;
  let pattern: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('--steps=')) {
      given = true;
      pattern = arg.slice('--steps='.length);
    } else if (arg === '--steps') {
      given = true;
      const next = args[i + 1];
      const othersPositional = args.filter((a, k) => k !== i + 1 && !a.startsWith('--')).length;
      if (next !== undefined && !next.startsWith('--') && othersPositional >= 1) {
        pattern = next;
        i++;
      }
    } else {
      rest.push(arg);
    }
  }
  if (pattern !== undefined) {
    if (pattern === '') {
      throw new UsageError('--steps: give a regular expression for the step ranges');
    }
    try {
      new RegExp(pattern);
    } catch (e) {
      throw new UsageError(`--steps: '${pattern}' is not a regular expression (${String(e)})`);
    }
  }
  return { given, pattern, rest };
}

/**
 * A .sstrace is decoded as it is read; anything else goes through the importers (format sniffed) the way
 * `import` reads it: a SQLite export page by page from disk, the rest streamed in chunks.
 */
export async function readTrace(
  file: string,
): Promise<{ trace: Trace; warnings: readonly string[] }> {
  if (file.endsWith('.sstrace')) {
    // Decoded a run of batches at a time, as the server reads its stored traces: any size.
    return { trace: await loadTraceFile({ path: file, partial: false }), warnings: [] };
  }
  return importFile(file, { fileName: path.basename(file) });
}

const pct = (ratio: number): string => `${(100 * ratio).toFixed(1)}%`;
const dur = formatDurationNs;

/**
 * The copy/compute overlap and its H2D/D2H parts, each only where copies of it ran: without copies
 * there is no ratio, and "0.0%" would read as "nothing overlapped".
 */
function copyOverlap(m: Analysis['metrics']): string {
  if (m.overlap.copyBusyNs === 0) {
    return 'copy/compute overlap — (no copies)';
  }
  const e = m.busyNsByEngine;
  const parts = [
    e.copyHtoD > 0 ? `H2D ${pct(m.overlap.htoD)}` : null,
    e.copyDtoH > 0 ? `D2H ${pct(m.overlap.dtoH)}` : null,
  ].filter((part) => part !== null);
  const detail = parts.length > 0 ? ` (${parts.join(', ')})` : '';
  return `copy/compute overlap ${pct(m.overlap.all)}${detail}`;
}

/** The human-readable report: metrics, gap summary, findings. */
export function formatAnalysis(trace: Trace, a: Analysis): string {
  const m = a.metrics;
  const lines: string[] = [];
  lines.push(`${trace.meta.title} (${trace.meta.sourceFormat}, ${m.gpuOpCount} GPU ops)`);
  lines.push(
    `makespan ${dur(m.makespanNs)}  device busy ${dur(m.deviceBusyNs)} (${pct(m.deviceUtilization)})  ${copyOverlap(m)}`,
  );
  const e = m.busyNsByEngine;
  lines.push(
    `engines  kernels ${dur(e.compute)}  H2D ${dur(e.copyHtoD)}  D2H ${dur(e.copyDtoH)}  D2D ${dur(e.copyDtoD)}  P2P ${dur(e.copyPtoP)}  memset ${dur(e.memset)}`,
  );
  const k = m.kernelClasses;
  const comm =
    m.overlap.commCompute === null
      ? ''
      : `  comm/compute overlap ${pct(m.overlap.commCompute)} (exposed ${dur(m.overlap.exposedCommunicationNs)})`;
  lines.push(
    `kernels  compute ${dur(k.computeNs)}  communication ${dur(k.communicationNs)}  memory ${dur(k.memoryNs)}${comm}`,
  );
  lines.push(
    `at once  up to ${m.concurrency.maxKernels} kernels, ${m.concurrency.maxCopies} copies`,
  );
  for (const s of m.streams) {
    lines.push(
      `  ${s.label.padEnd(28)} busy ${dur(s.busyNs).padStart(10)} ${pct(s.utilization).padStart(6)}  ${s.opCount} ops`,
    );
  }
  for (const bw of m.bandwidth) {
    // NaN: no copy of this direction had a recorded size (some imports carry none).
    const avg = Number.isNaN(bw.avgGBps) ? 'unknown' : bw.avgGBps.toFixed(2);
    lines.push(`  ${bw.kind.padEnd(10)} ${bw.count} copies  ${avg} GB/s avg`);
  }
  const ll = m.launchLatency.all;
  const mismatch = m.launchLatency.linksDisagree;
  if (mismatch !== null) {
    lines.push(
      `launch latency  left out: links span up to ${dur(mismatch.maxNs)} while the GPU worked ${dur(mismatch.gpuSpanNs)} (see launch-links-disagree)`,
    );
  } else if (ll.count > 0) {
    lines.push(
      `launch latency  p50 ${dur(ll.p50Ns)}  p90 ${dur(ll.p90Ns)}  p99 ${dur(ll.p99Ns)}  max ${dur(ll.maxNs)} (${ll.count} ops)`,
    );
  }
  if (m.launchQueueFullNs > 0) {
    lines.push(`launch queue full ${dur(m.launchQueueFullNs)} (the host blocks on a launch)`);
  }
  if (a.steps.count > 0) {
    lines.push(
      `steps  ${a.steps.count} matching /${a.steps.pattern}/  mean ${dur(a.steps.meanStepNs)}  median ${dur(a.steps.medianStepNs)}  max ${dur(a.steps.maxStepNs)}` +
        (a.steps.skewedSteps.length === 0
          ? ''
          : `  (${a.steps.skewedSteps.join(', ')}: host/GPU clock mismatch, not work)`),
    );
  }
  lines.push('');
  for (const [label, g] of [
    // Each says what it counts: every stream's own idle stretches, or the GPU's with none busy.
    ['idle gaps on streams (per stream, any length)', a.gaps.stream],
    ['GPU idle gaps (no stream busy, any length)', a.gaps.device],
  ] as const) {
    const causes = gapCauses
      .filter((c) => g.countByCause[c] > 0)
      .map((c) => `${c} ${g.countByCause[c]} (${dur(g.nsByCause[c])})`)
      .join(', ');
    lines.push(`${label}: ${g.count} (${dur(g.totalNs)})${causes === '' ? '' : ` — ${causes}`}`);
  }
  const largest = [...a.gaps.device.listed].sort((x, y) => y.durNs - x.durNs).slice(0, 3);
  for (const g of largest) {
    lines.push(`  ${g.detail}`);
  }
  lines.push('');
  if (a.findings.length === 0) {
    lines.push('findings: none');
  } else {
    lines.push(`findings: ${a.findings.length}`);
    for (const f of a.findings) {
      lines.push(
        `  [${f.severity}] ${f.ruleId}: ${f.title}` +
          (f.estimatedSavingNs > 0 ? ` (saves up to ${dur(f.estimatedSavingNs)})` : ''),
      );
      lines.push(`    ${f.message}`);
    }
  }
  return lines.join('\n');
}

/** The per-step table (`--steps`): one row per step, then the slowest. */
export function formatSteps(report: StepReport): string {
  if (report.count === 0) {
    return `\nsteps: no host range matches /${report.pattern}/`;
  }
  const lines = ['', `steps: ${report.count} matching /${report.pattern}/`];
  // A merged trace's steps repeat their names on every rank: "ProfilerStep#3 · rank 1".
  const label = (s: StepMetrics): string =>
    s.rank === undefined ? s.name : `${s.name} · rank ${s.rank}`;
  // Pipeline stages' sends and receives are not in comm/exposed (collectives): a column of
  // their own where any step has them.
  const sendRecv = report.steps.some((s) => s.pointToPointNs > 0);
  const row = (s: StepMetrics): string =>
    [
      label(s).padEnd(24),
      dur(s.stepNs).padStart(10),
      dur(s.gpuBusyNs).padStart(10),
      dur(s.computeNs).padStart(10),
      dur(s.communicationNs).padStart(10),
      dur(s.exposedCommunicationNs).padStart(10),
      ...(sendRecv ? [dur(s.pointToPointNs).padStart(10)] : []),
      dur(s.idleNs).padStart(10),
    ].join(' ');
  const headers = ['time', 'GPU busy', 'compute', 'comm', 'exposed'];
  headers.push(...(sendRecv ? ['send/recv'] : []), 'idle');
  lines.push(`  ${'step'.padEnd(24)} ${headers.map((h) => h.padStart(10)).join(' ')}`);
  // A step marked * took in the host/GPU clock mismatch (launch-links-disagree), not work.
  const skewed = new Set(report.skewedSteps);
  for (const s of report.steps.slice(0, maxPrintedSteps)) {
    lines.push(`  ${row(s)}${skewed.has(s.name) ? ' *' : ''}`);
  }
  const more = report.count - Math.min(report.steps.length, maxPrintedSteps);
  if (more > 0) {
    lines.push(`  … ${more} more (all in --json)`);
  }
  lines.push(`slowest: ${report.slowest.map((s) => `${label(s)} ${dur(s.stepNs)}`).join(', ')}`);
  if (skewed.size > 0) {
    lines.push(
      `* longer than the GPU's whole span because the host and GPU clocks disagree (see launch-links-disagree): its time is the mismatch, not work`,
    );
  }
  return lines.join('\n');
}
