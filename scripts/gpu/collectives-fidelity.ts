// The two-GPU collectives run beside the simulator: every workload exactly as it ran on the GPUs
// (the specs file), simulated on a profile, against the median of its measured makespans
// (collectives-main.mjs's results), and the ddp-bucketing speedups (sync over overlap) per
// bucket size on both sides:
//   pnpm tsx scripts/gpu/collectives-fidelity.ts fixtures/runs/collectives-h200x2.json \
//     fixtures/runs/collectives-specs-h200x2.json.gz h200x2
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { summarizeRun } from '@streamscope/analysis';
import type { DeviceProfile } from '@streamscope/simulator';
import { findProfile, simulate } from '@streamscope/simulator';
import { validateWorkload } from '@streamscope/workload';
import { median } from '../bench/report.ts';

/** One workload's line of collectives-main.mjs's results. */
export interface MeasuredSpec {
  readonly name: string;
  readonly makespansMs: readonly number[];
}

export interface FidelityRow {
  readonly name: string;
  readonly simulatedMs: number;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** (simulated − median) / median, %. */
  readonly errorPct: number;
}

export interface SpeedupRow {
  readonly bucket: string;
  readonly simulated: number;
  readonly measured: number;
  readonly errorPct: number;
}

/** Simulated against measured makespan for every measured workload that has its spec. */
export function collectivesFidelity(
  measured: readonly MeasuredSpec[],
  specs: Readonly<Record<string, unknown>>,
  profile: DeviceProfile,
): FidelityRow[] {
  return measured.map((m) => {
    const spec = specs[m.name];
    if (spec === undefined || m.makespansMs.length === 0) {
      throw new Error(`${m.name}: no spec, or no measured run`);
    }
    const validated = validateWorkload(spec);
    if (!validated.ok) {
      throw new Error(
        `${m.name}: ${validated.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      );
    }
    const simulatedMs = summarizeRun(simulate(validated.plan, profile)).makespanNs / 1e6;
    const medianMs = median(m.makespansMs);
    return {
      name: m.name,
      simulatedMs,
      medianMs,
      minMs: Math.min(...m.makespansMs),
      maxMs: Math.max(...m.makespansMs),
      errorPct: (simulatedMs / medianMs - 1) * 100,
    };
  });
}

/** ddp-sync-B over ddp-overlap-B, simulated and measured, for each bucket size B present. */
export function ddpSpeedups(rows: readonly FidelityRow[]): SpeedupRow[] {
  const byName = new Map(rows.map((r) => [r.name, r]));
  const out: SpeedupRow[] = [];
  for (const row of rows) {
    const bucket = /^ddp-sync-(.+)$/.exec(row.name)?.[1];
    const overlap = bucket === undefined ? undefined : byName.get(`ddp-overlap-${bucket}`);
    if (bucket === undefined || overlap === undefined) {
      continue;
    }
    const simulated = row.simulatedMs / overlap.simulatedMs;
    const measured = row.medianMs / overlap.medianMs;
    out.push({ bucket, simulated, measured, errorPct: (simulated / measured - 1) * 100 });
  }
  return out;
}

/** The specs file: a gzip'd JSON object of workload name → spec as run. */
export function readSpecs(path: string): Record<string, unknown> {
  return JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as Record<string, unknown>;
}

function main(): void {
  const [resultsPath, specsPath, profileName = 'h200x2'] = process.argv.slice(2);
  const profile = findProfile(profileName);
  if (resultsPath === undefined || specsPath === undefined || profile === undefined) {
    process.stderr.write('usage: collectives-fidelity.ts RESULTS.json SPECS.json.gz PROFILE\n');
    process.exit(2);
  }
  const measured = JSON.parse(readFileSync(resultsPath, 'utf8')) as MeasuredSpec[];
  const rows = collectivesFidelity(measured, readSpecs(specsPath), profile);
  const ms = (v: number): string => v.toFixed(3).padStart(8);
  const pct = (v: number): string => `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`.padStart(8);
  process.stdout.write(
    `workload                  simulated  measured median [min – max] ms   error\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${r.name.padEnd(24)} ${ms(r.simulatedMs)}  ${ms(r.medianMs)} [${r.minMs.toFixed(3)} – ${r.maxMs.toFixed(3)}] ${pct(r.errorPct)}\n`,
    );
  }
  for (const s of ddpSpeedups(rows)) {
    process.stdout.write(
      `ddp speedup at ${s.bucket.padEnd(7)}  simulated ${s.simulated.toFixed(2)}x  measured ${s.measured.toFixed(2)}x ${pct(s.errorPct)}\n`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main();
}
