import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDurationNs, loadTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { runCli } from '../run-cli-for-test.ts';

const cli = runCli;

describe('streamscope run', () => {
  it('runs a preset on the simulator, saves the trace and prints the summary last', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'run-cli-'));
    const out = path.join(dir, 'p.sstrace');
    const r = await cli([
      'run',
      '--preset',
      'pipeline',
      '--set',
      'chunks=2',
      '--backend',
      'sim',
      '--out',
      out,
      '--summary',
    ]);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    const summary = JSON.parse(lines.at(-1)!) as {
      makespanNs: number;
      gpuOpCount: number;
      hostOpCount: number;
      opCounts: Record<string, number>;
      commComputeOverlap: number | null;
    };
    expect(summary.makespanNs).toBeGreaterThan(0);
    // The header counts what the summary counts: GPU ops = the sum of opCounts, and the GPU span.
    const opSum = Object.values(summary.opCounts).reduce((a, b) => a + b, 0);
    expect(summary.gpuOpCount).toBe(opSum);
    expect(summary.hostOpCount).toBeGreaterThan(0);
    expect(lines.at(-2)).toContain(
      `; ${opSum} GPU ops (+${summary.hostOpCount} host calls), GPU span ${formatDurationNs(summary.makespanNs)},`,
    );
    expect(summary.commComputeOverlap).toBeNull();
    expect(loadTrace(new Uint8Array(await readFile(out))).meta.timingMethod).toBe('sim');
    const replay = await cli(['run', '--replay', out]);
    expect(replay.code).toBe(0);
    expect(replay.out).toContain('finished on replay');
  });

  it('reports every problem of an invalid workload with its path and exits 1', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'run-cli-'));
    const file = path.join(dir, 'bad.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'x',
        threads: [{ name: 'm', ops: [{ op: 'kernel', duration: '-5us' }] }],
      }),
    );
    const r = await cli(['run', file, '--backend', 'sim']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('$.threads[0].ops[0].duration');
  });

  it('refuses unknown backends and missing inputs as usage errors', async () => {
    expect((await cli(['run', '--preset', 'pipeline', '--backend', 'tpu'])).code).toBe(2);
    expect((await cli(['run', '--backend', 'sim'])).code).toBe(2);
    expect((await cli(['run', '--backend', 'replay'])).code).toBe(2);
  });

  it('exits non-zero with the probe reason when cuda is asked for and unusable', async () => {
    const probe = await cli(['probe']);
    const report = JSON.parse(probe.out) as { available: boolean; reason?: string };
    if (report.available) {
      return; // a GPU machine: nothing to refuse
    }
    const r = await cli(['run', '--preset', 'pipeline', '--backend', 'cuda']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(report.reason);
  });
});
