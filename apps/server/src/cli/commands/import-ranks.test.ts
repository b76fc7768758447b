import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyzeTrace } from '@streamscope/analysis';
import { loadTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { runCli } from '../run-cli-for-test.ts';

const fixtures = path.resolve(import.meta.dirname, '../../../../../fixtures');
const rank = (r: number): string => path.join(fixtures, `kineto/rank${r}.pt.trace.json.gz`);

describe('streamscope import of several ranks', () => {
  it('merges the gloo pair into one trace with a group per rank (-o, --summary)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'import-ranks-'));
    const out = path.join(dir, 'job.sstrace');
    const r = await runCli(['import', rank(1), rank(0), '-o', out, '--summary']);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trim().split('\n');
    // One line per file (each 15 kernels), the merged line, then the summary.
    expect(lines[0]).toMatch(/^rank1\.pt\.trace\.json\.gz \(\d+ bytes\): chrome-trace.*15 kernels/);
    expect(lines[2]).toMatch(
      /^merged 2 ranks \(rank 0 rank0\.pt\.trace\.json\.gz \+\d+ ns, rank 1 rank1\.pt\.trace\.json\.gz \+\d+ ns\): .*30 kernels/,
    );
    const summary = JSON.parse(lines.at(-1)!) as {
      counts: { kernel: number };
      ranks: { rank: number; fileName: string; clocked: boolean }[];
    };
    expect(summary.counts.kernel).toBe(30);
    expect(summary.ranks.map((x) => [x.rank, x.fileName, x.clocked])).toEqual([
      [0, 'rank0.pt.trace.json.gz', true],
      [1, 'rank1.pt.trace.json.gz', true],
    ]);
    const trace = loadTrace(await readFile(out));
    expect(trace.processes.map((p) => p.rank).sort()).toEqual([0, 1]);
    expect(analyzeTrace(trace).ranks?.ranks.map((x) => x.gpuOpCount)).toEqual([27, 27]);
  });

  it('merges the NCCL pair, whose ranks spend GPU time in NCCL kernels', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'import-ranks-'));
    const out = path.join(dir, 'nccl.sstrace');
    const r = await runCli([
      'import',
      path.join(fixtures, 'kineto/nccl2-rank0.pt.trace.json.gz'),
      path.join(fixtures, 'kineto/nccl2-rank1.pt.trace.json.gz'),
      '--out',
      out,
    ]);
    expect(r.code, r.err).toBe(0);
    const ranks = analyzeTrace(loadTrace(await readFile(out))).ranks!;
    expect(ranks.ranks.map((x) => x.rank)).toEqual([0, 1]);
    for (const x of ranks.ranks) {
      expect(x.communicationNs).toBeGreaterThan(0);
      expect(x.computeNs).toBeGreaterThan(0);
    }
  });

  it('fails naming the file when two files are the same rank', async () => {
    const r = await runCli(['import', rank(0), rank(0)]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('rank0.pt.trace.json.gz: is rank 0, and so is rank0.pt.trace.json.gz');
  });
});
