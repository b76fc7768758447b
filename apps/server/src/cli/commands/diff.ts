import type { Comparison, MetricDelta } from '@streamscope/analysis';
import { compareTraces } from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';
import { formatDurationNs } from '@streamscope/trace';
import type { Command } from '../command.ts';
import { UsageError } from '../command.ts';
import { parseFlags } from '../parse-flags.ts';
import { readTrace, takeStepsFlag } from './analyze.ts';

const usage = [
  'usage: pnpm streamscope diff A B [--json] [--steps [NAME_REGEX]]',
  '',
  '  A, B           two runs to compare, each a .sstrace or any file analyze reads (nsys',
  '                 JSON/SQLite export, Chrome or kineto trace, gzip or not); B against A',
  '  --json         print one JSON object: the files, speedup, metric differences, matched ops,',
  '                 per-stream and per-name totals, the largest op changes and findings',
  '  --steps REGEX  take host ranges matching REGEX as steps (default ProfilerStep#N)',
].join('\n');

/** Rows of each table the text report prints. */
const printedRows = 15;

/** `streamscope diff`: the Compare page's run-to-run comparison, on the command line. */
export const diffCommand: Command = {
  name: 'diff',
  summary: 'Compare two traces: speedup, metric differences, matched ops, per-name totals',
  usage,
  async run(args, io) {
    const steps = takeStepsFlag(args);
    const flags = parseFlags(steps.rest, { switches: ['json'] });
    if (flags.positional.length !== 2) {
      throw new UsageError('give exactly two traces or files to compare (A, then B)');
    }
    const [fileA, fileB] = flags.positional as [string, string];
    const a = await readTrace(fileA);
    const b = await readTrace(fileB);
    for (const [file, warnings] of [
      [fileA, a.warnings],
      [fileB, b.warnings],
    ] as const) {
      for (const warning of warnings) {
        io.err(`warning: ${file}: ${warning}`);
      }
    }
    const options = steps.pattern === undefined ? {} : { stepPattern: steps.pattern };
    const comparison = compareTraces(a.trace, b.trace, options);
    if (flags.switches.has('json')) {
      io.out(
        JSON.stringify({
          a: { file: fileA, title: a.trace.meta.title },
          b: { file: fileB, title: b.trace.meta.title },
          ...comparison,
        }),
      );
    } else {
      io.out(formatComparison(a.trace, b.trace, comparison));
    }
    return 0;
  },
};

const dur = formatDurationNs;

/** "+12.5%" for b relative to a; "—" when a is 0. */
function relative(a: number, b: number): string {
  if (a === 0) {
    return b === 0 ? '0%' : '—';
  }
  const change = (b - a) / a;
  return `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
}

function signedNs(ns: number): string {
  return `${ns > 0 ? '+' : ns < 0 ? '-' : ''}${dur(Math.abs(ns))}`;
}

function metricValue(unit: MetricDelta['unit'], value: number): string {
  return unit === 'ns'
    ? dur(value)
    : unit === 'ratio'
      ? `${(100 * value).toFixed(1)}%`
      : String(value);
}

function metricChange(m: MetricDelta): string {
  if (m.unit === 'ratio') {
    return `${m.delta >= 0 ? '+' : ''}${(100 * m.delta).toFixed(1)} pt`;
  }
  return `${m.unit === 'ns' ? signedNs(m.delta) : `${m.delta >= 0 ? '+' : ''}${m.delta}`} (${relative(m.a, m.b)})`;
}

/** The human-readable comparison: speedup, metrics, matched ops, largest changes, findings. */
export function formatComparison(a: Trace, b: Trace, c: Comparison): string {
  const lines: string[] = [];
  lines.push(`A: ${a.meta.title} (${a.meta.sourceFormat})`);
  lines.push(`B: ${b.meta.title} (${b.meta.sourceFormat})`);
  const faster = c.speedup >= 1 ? 'faster' : 'slower';
  lines.push(
    `makespan ${dur(c.makespanNsA)} → ${dur(c.makespanNsB)}: B runs ${c.speedup.toFixed(2)}× ${faster} (makespan A / makespan B)`,
  );
  lines.push('');
  lines.push(`  ${'metric'.padEnd(24)} ${'A'.padStart(12)} ${'B'.padStart(12)}  B vs A`);
  // Rows that are 0 in both runs (no communication, no steps) say nothing; JSON keeps them.
  for (const m of c.metrics.filter((x) => x.a !== 0 || x.b !== 0)) {
    lines.push(
      `  ${m.name.padEnd(24)} ${metricValue(m.unit, m.a).padStart(12)} ${metricValue(m.unit, m.b).padStart(12)}  ${metricChange(m)}`,
    );
  }
  lines.push('');
  lines.push(
    `ops matched ${c.matchedOps} (by stream rank, kind, name and occurrence); only in A ${c.unmatchedA}, only in B ${c.unmatchedB}`,
  );
  if (c.names.length > 0) {
    lines.push('');
    lines.push('largest changes per name (all streams): count A → B, total A → B, change');
    for (const n of c.names.slice(0, printedRows)) {
      lines.push(
        `  ${signedNs(n.deltaNs).padStart(10)}  ${n.kind} "${n.name}": ${n.countA} → ${n.countB}, ${dur(n.totalNsA)} → ${dur(n.totalNsB)}`,
      );
    }
  }
  if (c.largestDiffs.length > 0) {
    lines.push('');
    lines.push('largest changes of matched ops: duration A → B, start shift');
    for (const d of c.largestDiffs.slice(0, printedRows)) {
      lines.push(
        `  ${signedNs(d.deltaNs).padStart(10)}  "${d.name}" on ${d.stream}: ${dur(d.durNsA)} → ${dur(d.durNsB)}, starts ${signedNs(d.startShiftNs)}`,
      );
    }
  }
  lines.push('');
  const list = (ids: readonly string[]): string => (ids.length === 0 ? 'none' : ids.join(', '));
  lines.push(`findings only in A (gone in B): ${list(c.findings.onlyA)}`);
  lines.push(`findings only in B (new): ${list(c.findings.onlyB)}`);
  lines.push(`findings in both: ${list(c.findings.both)}`);
  return lines.join('\n');
}
