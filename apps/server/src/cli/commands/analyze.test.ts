import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../run-cli-for-test.ts';

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
});
