import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../run-cli-for-test.ts';

interface DiffJson {
  readonly a: { readonly file: string };
  readonly b: { readonly file: string };
  readonly makespanNsA: number;
  readonly makespanNsB: number;
  readonly speedup: number;
  readonly matchedOps: number;
  readonly unmatchedA: number;
  readonly unmatchedB: number;
  readonly metrics: readonly { readonly name: string; readonly delta: number }[];
  readonly names: readonly { readonly name: string; readonly countA: number }[];
  readonly findings: { readonly onlyA: readonly string[] };
}

/** The default-stream preset on the simulator, in legacy and non-blocking mode. */
async function twoRuns(): Promise<[string, string]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'diff-cli-'));
  const files: string[] = [];
  for (const mode of ['legacy', 'non-blocking']) {
    const file = path.join(dir, `${mode}.sstrace`);
    const args = ['run', '--preset', 'default-stream', '--set', `mode=${mode}`];
    const r = await runCli([...args, '--backend', 'sim', '--out', file]);
    expect(r.code, r.err).toBe(0);
    files.push(file);
  }
  return files as [string, string];
}

const fixture = (relative: string): string =>
  path.resolve(import.meta.dirname, '../../../../../fixtures', relative);

describe('streamscope diff', () => {
  it('prints the comparison as one JSON object with --json', async () => {
    const [legacy, nonBlocking] = await twoRuns();
    const r = await runCli(['diff', legacy, nonBlocking, '--json']);
    expect(r.code, r.err).toBe(0);
    const c = JSON.parse(r.out.trim().split('\n').at(-1)!) as DiffJson;
    expect(c.a.file).toBe(legacy);
    expect(c.b.file).toBe(nonBlocking);
    expect(c.speedup).toBeCloseTo(c.makespanNsA / c.makespanNsB, 12);
    expect(c.speedup).toBeGreaterThan(1);
    // One workload twice: every op has its counterpart.
    expect(c.matchedOps).toBeGreaterThan(0);
    expect(c.unmatchedA + c.unmatchedB).toBe(0);
    const makespan = c.metrics.find((m) => m.name === 'makespan')!;
    expect(makespan.delta).toBe(c.makespanNsB - c.makespanNsA);
    expect(c.names.length).toBeGreaterThan(0);
    expect(c.findings.onlyA).toContain('default-stream-serialization');
  });

  it('prints speedup, metric differences, per-name totals and findings as text', async () => {
    const [legacy, nonBlocking] = await twoRuns();
    const r = await runCli(['diff', legacy, nonBlocking]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/makespan .* → .*: B runs \d+\.\d\d× faster/);
    expect(r.out).toMatch(/ {2}device utilization +\d+\.\d% +\d+\.\d% {2}[+-]\d+\.\d pt/);
    expect(r.out).toContain('largest changes per name (all streams)');
    expect(r.out).toContain('findings only in A (gone in B): default-stream-serialization');
  });

  it('compares an import with a streamscope trace', async () => {
    const [legacy] = await twoRuns();
    const r = await runCli(['diff', fixture('kineto/train.pt.trace.json.gz'), legacy, '--json']);
    expect(r.code, r.err).toBe(0);
    const c = JSON.parse(r.out.trim().split('\n').at(-1)!) as DiffJson;
    expect(c.makespanNsA).toBeGreaterThan(0);
    expect(c.unmatchedA).toBeGreaterThan(0);
  });

  it('exits 2 unless given exactly two files', async () => {
    const r = await runCli(['diff', fixture('kineto/train.pt.trace.json.gz')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('give exactly two traces or files to compare');
  });

  it('fails with the importer error for a file it cannot read', async () => {
    const [legacy] = await twoRuns();
    const r = await runCli(['diff', legacy, fixture('broken/wrong-format.json')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('wrong-format.json: not a format streamscope reads');
  });
});
