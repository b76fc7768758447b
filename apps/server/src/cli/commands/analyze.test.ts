import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyzeTrace } from '@streamscope/analysis';
import { kernelRunTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { runCli } from '../run-cli-for-test.ts';
import { formatAnalysis } from './analyze.ts';

const cli = runCli;

interface AnalyzeJson {
  readonly metrics: { readonly makespanNs: number };
  readonly gaps: unknown;
  readonly findings: readonly { readonly ruleId: string }[];
}

/** A trace of the legacy default stream pitfall, made by `run` on the simulator. */
async function legacyStreamTrace(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'analyze-cli-'));
  const file = path.join(dir, 'legacy.sstrace');
  const r = await cli([
    'run',
    '--preset',
    'default-stream',
    '--set',
    'mode=legacy',
    '--backend',
    'sim',
    '--out',
    file,
  ]);
  expect(r.code, r.err).toBe(0);
  return file;
}

describe('streamscope analyze', () => {
  it('prints no copy/compute overlap figure for a trace without copies, not a 0.0% that reads as none', () => {
    const trace = kernelRunTrace(20);
    const report = formatAnalysis(trace, analyzeTrace(trace));
    expect(report).toContain('copy/compute overlap — (no copies)');
    expect(report).not.toMatch(/overlap 0\.0%/);
  });

  it('says what each gap count counts, as the trace page summary does', () => {
    const trace = kernelRunTrace(20);
    const report = formatAnalysis(trace, analyzeTrace(trace));
    expect(report).toMatch(/\nidle gaps on streams \(per stream, any length\): \d+ /);
    expect(report).toMatch(/\nGPU idle gaps \(no stream busy, any length\): \d+ /);
  });

  it('prints the bandwidth of copies whose size the trace does not record as unknown, not 0', async () => {
    // ROCm kineto trace: the DtoD copy has no size and no hipMemcpy call to take one from.
    const fixture = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/kineto/rocm-hip.json',
    );
    const r = await cli(['analyze', fixture]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/copy-dtod\s+1 copies\s+unknown GB\/s avg/);
    expect(r.out).toMatch(/copy-htod\s+1 copies\s+26\.21 GB\/s avg/);
  });

  it('reads a SQLite export page by page from disk, as import does (the error names the page)', async () => {
    // sql.js on the whole file would only say "database disk image is malformed".
    const fixture = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/broken/corrupt-page.sqlite',
    );
    const r = await cli(['analyze', fixture]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/page 3, offset 8192/);
  });

  it('analyzes a gzip SQLite export as import reads it', async () => {
    const fixture = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/nsys/2025.3.1/graph.sqlite.gz',
    );
    const r = await cli(['analyze', fixture, '--json']);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out.trim().split('\n').at(-1)!) as AnalyzeJson;
    expect(result.metrics.makespanNs).toBeGreaterThan(0);
  });

  it('prints metrics, gaps and findings as one JSON object with --json', async () => {
    const file = await legacyStreamTrace();
    const r = await cli(['analyze', file, '--json']);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out.trim().split('\n').at(-1)!) as AnalyzeJson;
    expect(result.metrics.makespanNs).toBeGreaterThan(0);
    expect(result.gaps).toBeDefined();
    expect(result.findings.map((f) => f.ruleId)).toContain('default-stream-serialization');
  });

  it('exits 1 when a --fail-on rule fires and 0 when the named rule stays quiet', async () => {
    const file = await legacyStreamTrace();
    const fired = await cli(['analyze', file, '--fail-on', 'default-stream-serialization']);
    expect(fired.code).toBe(1);
    const quiet = await cli(['analyze', file, '--fail-on', 'sync-memset']);
    expect(quiet.code).toBe(0);
  });

  it('exits 2 for an unknown rule and names the known ones', async () => {
    const file = await legacyStreamTrace();
    const r = await cli(['analyze', file, '--fail-on', 'no-such-rule']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown rule 'no-such-rule'");
    expect(r.err).toContain('pageable-copy');
  });

  it('fails with the importer error for a file it cannot read', async () => {
    const broken = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/broken/wrong-format.json',
    );
    const r = await cli(['analyze', broken]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('wrong-format.json: not a format streamscope reads');
  });

  it('leaves out launch latency it cannot trust and marks the step that took in the mismatch', async () => {
    // Every kernel of this kineto trace is linked to a call ~1.68 s earlier; the GPU worked 85.6 ms.
    const nccl = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/kineto/nccl2-rank0.pt.trace.json.gz',
    );
    const r = await cli(['analyze', nccl, '--steps']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(/launch latency +p50/);
    expect(r.out).toContain(
      'launch latency  left out: links span up to 1.708 s while the GPU worked 85.62 ms (see launch-links-disagree)',
    );
    expect(r.out).toMatch(/\n {2}ProfilerStep#3 +1\.71 s .* \*\n/);
    expect(r.out).not.toMatch(/ProfilerStep#1 .* \*\n/);
    expect(r.out).toContain('[warning] launch-links-disagree: Launch links cannot be real\n');
  });

  it('prints the per-step table with --steps REGEX, and the steps in --json', async () => {
    const train = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/nsys/2025.3.1/train.json',
    );
    // The training run marks each iteration with an NVTX range "step N" (12 of them).
    const r = await cli(['analyze', train, '--steps', '^step \\d+$']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('steps: 12 matching /^step \\d+$/');
    expect(r.out).toMatch(/ {2}step +time +GPU busy +compute +comm +exposed +idle/);
    expect(r.out).toMatch(/\n {2}step 11 +\S+ \S+/);
    expect(r.out).toMatch(/slowest: step \d+ /);
    const json = await cli(['analyze', '--steps=^step \\d+$', train, '--json']);
    const steps = (
      JSON.parse(json.out.trim().split('\n').at(-1)!) as {
        steps: { count: number; steps: { name: string; stepNs: number }[] };
      }
    ).steps;
    expect(steps.count).toBe(12);
    expect(steps.steps[0]!.name).toBe('step 0');
    expect(steps.steps.every((s) => s.stepNs > 0)).toBe(true);
  });

  it("gives pipeline stages' sends and receives a column of their own in --steps", async () => {
    // The recorded two-stage GPipe job: its steps have no collectives, only send/recv.
    const rank = (r: number) =>
      path.resolve(
        import.meta.dirname,
        `../../../../../fixtures/kineto/pp2gpu-rank${r}.pt.trace.json.gz`,
      );
    const merged = path.join(await mkdtemp(path.join(tmpdir(), 'analyze-pp-')), 'pp.sstrace');
    expect((await cli(['import', rank(0), rank(1), '-o', merged])).code).toBe(0);
    const r = await cli(['analyze', merged, '--steps']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/ +step +time +GPU busy +compute +comm +exposed +send\/recv +idle\n/);
    // Each step row: comm and exposed 0 (no collectives), send/recv not.
    const rows = r.out.split('\n').filter((line) => /^ {2}ProfilerStep#\d+ · rank \d/.test(line));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row).toMatch(/ 0 ns +0 ns +[1-9][\d.]* (?:µs|ms) +[\d.]+ (?:ns|µs|ms)$/);
    }
    // A trace without send/recv keeps the table as it was.
    const nccl = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/kineto/nccl2-rank0.pt.trace.json.gz',
    );
    expect((await cli(['analyze', nccl, '--steps'])).out).not.toContain('send/recv');
  });

  it('takes a bare --steps before the file as ProfilerStep#N', async () => {
    const file = await legacyStreamTrace();
    const r = await cli(['analyze', '--steps', file]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('steps: no host range matches /^ProfilerStep#\\d+$/');
  });

  it('exits 2 for a --steps pattern that is no regular expression', async () => {
    const file = await legacyStreamTrace();
    const r = await cli(['analyze', file, '--steps', 'step (']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--steps: 'step (' is not a regular expression");
  });
});
