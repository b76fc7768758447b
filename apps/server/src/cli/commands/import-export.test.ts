import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { runCli } from '../run-cli-for-test.ts';

const cli = runCli;

const fixtures = path.resolve(import.meta.dirname, '../../../../../fixtures');

describe('streamscope import and export', () => {
  it('imports a real nsys SQLite export, saves the trace and prints the summary last', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'import-cli-'));
    const out = path.join(dir, 'train.sstrace');
    const r = await cli([
      'import',
      path.join(fixtures, 'nsys/2025.3.1/train.sqlite'),
      '--out',
      out,
      '--summary',
    ]);
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out.trim().split('\n').at(-1)!) as {
      format: string;
      counts: { kernel: number; api: number };
    };
    expect(summary.format).toBe('nsys-sqlite');
    expect(summary.counts.kernel).toBeGreaterThan(0);
    const trace = loadTrace(await readFile(out));
    expect(trace.meta.sourceFormat).toBe('nsys-sqlite');
    // The saved trace holds the kernels the summary counted.
    const kinds = trace.ops.columns().kind;
    expect(kinds.filter((k) => k === 0).length).toBe(summary.counts.kernel);
  });

  it('imports a kineto trace in µs since 1970 and a ROCm one, counting what the profiler recorded', async () => {
    const epoch = await cli(['import', path.join(fixtures, 'kineto/epoch-us.json'), '--summary']);
    expect(epoch.code, epoch.err).toBe(0);
    expect(epoch.out).toContain('2 kernels, 1 copies, 0 memsets, 0 syncs, 0 graph launches');
    expect(JSON.parse(epoch.out.trim().split('\n').at(-1)!)).toMatchObject({
      producer: 'kineto schema 1',
      counts: { kernel: 2, memcpy: 1, api: 3, range: 3 },
      copyBytes: { DtoH: 65536 },
      unknownSizeOps: 0,
    });
    const rocm = await cli(['import', path.join(fixtures, 'kineto/rocm-hip.json'), '--summary']);
    expect(rocm.code, rocm.err).toBe(0);
    expect(rocm.out).toContain('1 copies/memsets of unknown size');
    expect(JSON.parse(rocm.out.trim().split('\n').at(-1)!)).toMatchObject({
      counts: { kernel: 1, memcpy: 3, memset: 1 },
      copyBytes: { HtoD: 1048576, DtoH: 4096 },
      unknownSizeOps: 1,
    });
  });

  it('exports a saved trace as Chrome trace JSON with one event per op', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'export-cli-'));
    const saved = path.join(dir, 'p.sstrace');
    const run = await cli(['run', '--preset', 'pipeline', '--backend', 'sim', '--out', saved]);
    expect(run.code, run.err).toBe(0);
    const json = path.join(dir, 'p.json');
    const r = await cli(['export', saved, '--format', 'chrome', '--out', json]);
    expect(r.code, r.err).toBe(0);
    const chrome = JSON.parse(await readFile(json, 'utf8')) as {
      traceEvents: { ph: string }[];
    };
    const spans = chrome.traceEvents.filter((e) => e.ph === 'X').length;
    expect(spans).toBe(loadTrace(await readFile(saved)).ops.count);
  });

  it('exits 2 when export is asked for a format it does not write', async () => {
    const r = await cli(['export', 'x.sstrace', '--format', 'svg']);
    expect(r.code).toBe(2);
  });

  it('tells the user to run nsys export for a .nsys-rep', async () => {
    const r = await cli(['import', path.join(fixtures, 'broken/report.nsys-rep')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('nsys export');
  });
  it('refuses a file over --max-bytes by its size, before reading it, naming the flag', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'import-cap-'));
    // Not a trace at all: read, it would fail as unreadable, not as too large.
    const big = path.join(dir, 'big.json');
    await writeFile(big, 'x'.repeat(4096));
    const r = await cli([
      'import',
      path.join(fixtures, 'kineto/epoch-us.json'),
      big,
      '--max-bytes',
      '3500',
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /big\.json is 4096 bytes, over the 3500-byte limit for imports; --max-bytes N raises it$/m,
    );
    // Refused before anything was read: not even the first (small, valid) file was imported.
    expect(r.out).toBe('');
  });

  it('refuses a trace over --max-ops, a SQLite export by its tables before its rows, naming the flag', async () => {
    const refusal = async (fixture: string, maxOps: number): Promise<string> => {
      const r = await cli(['import', path.join(fixtures, fixture), '--max-ops', String(maxOps)]);
      expect(r.code).toBe(1);
      return r.err;
    };
    expect(await refusal('nsys/2025.3.1/train.sqlite', 2000)).toMatch(
      /train\.sqlite: the export's GPU activity and API call tables hold up to 2350 rows \(by their b-trees\), each an op, over the limit of 2000 ops an import keeps; --max-ops 2400 or more keeps it all: about 240 kB at 100 bytes an op, of the \d+\.\d GB this machine has$/m,
    );
    // The advice holds: its 2,350 ops and 48 NVTX ranges fit in 2400.
    const advised = await cli([
      'import',
      path.join(fixtures, 'nsys/2025.3.1/train.sqlite'),
      '--max-ops',
      '2400',
    ]);
    expect(advised.code, advised.err).toBe(0);
    expect(await refusal('kineto/train.pt.trace.json.gz', 500)).toMatch(
      /train\.pt\.trace\.json\.gz: the trace has more than 500 ops and ranges together, the limit an import keeps; --max-ops N raises it$/m,
    );
    const fits = await cli([
      'import',
      path.join(fixtures, 'kineto/train.pt.trace.json.gz'),
      '--max-ops',
      '2093',
      '--summary',
    ]);
    expect(fits.code, fits.err).toBe(0);
  });

  it('holds several files to --max-ops together: each gets the room the files before it left', async () => {
    // The gloo pair: 92 ops and 63 ranges a rank, 310 records together.
    const ranks = ['kineto/rank0.pt.trace.json.gz', 'kineto/rank1.pt.trace.json.gz'].map((f) =>
      path.join(fixtures, f),
    );
    const over = await cli(['import', ...ranks, '--max-ops', '300']);
    expect(over.code).toBe(1);
    expect(over.err).toMatch(
      /rank1\.pt\.trace\.json\.gz: the trace has more than 145 ops and ranges together, the limit an import keeps.* \(what --max-ops 300 leaves after the 155 ops and ranges of rank0\.pt\.trace\.json\.gz\); --max-ops N raises it$/m,
    );
    const full = await cli(['import', ...ranks, '--max-ops', '155']);
    expect(full.err).toMatch(
      /rank1\.pt\.trace\.json\.gz: no room left for its ops \(what --max-ops 155 leaves after the 155 ops and ranges of rank0\.pt\.trace\.json\.gz\); --max-ops N raises it$/m,
    );
    const fits = await cli(['import', ...ranks, '--max-ops', '310']);
    expect(fits.code, fits.err).toBe(0);
    expect(fits.out).toMatch(/^merged 2 ranks/m);
  });
});
