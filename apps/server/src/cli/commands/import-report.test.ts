import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { locateNsys } from '@streamscope/importers/node';
import { loadTrace } from '@streamscope/trace';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { importFile } from '../import-file.ts';
import { runCli } from '../run-cli-for-test.ts';
import {
  callsOf,
  isRunning,
  standInExport,
  writeNsysStandIn,
  writeTestReport,
} from '../../../scripts/nsys-stand-in.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../../../..');
const fixtures = path.join(repoRoot, 'fixtures');

/** A fresh folder with a stand-in nsys of `mode` and a report `step.nsys-rep` beside it. */
async function setUp(mode: Parameters<typeof writeNsysStandIn>[1]) {
  const dir = await mkdtemp(path.join(tmpdir(), 'import-report-'));
  const nsys = await writeNsysStandIn(dir, mode);
  const report = await writeTestReport(dir, 'step.nsys-rep');
  return { dir, nsys, report };
}

/** The --summary line of a CLI run. */
function summaryOf(out: string): { format: string; counts: Record<string, number> } {
  return JSON.parse(out.trim().split('\n').at(-1)!) as {
    format: string;
    counts: Record<string, number>;
  };
}

// Only the standard install places searched: where they hold an nsys, "none found" cannot be seen.
const nsysInstalled = (await locateNsys({})).found;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('streamscope import of an Nsight Systems report', () => {
  it('exports it with nsys into a private folder it removes, and imports what the export holds', async () => {
    const { dir, nsys, report } = await setUp('export');
    const out = path.join(dir, 'step.sstrace');
    const r = await runCli(['import', report, '--nsys', nsys, '-o', out, '--summary']);
    expect(r.code, r.err).toBe(0);
    const direct = await runCli(['import', path.join(fixtures, standInExport), '--summary']);
    expect(direct.code, direct.err).toBe(0);
    expect(summaryOf(r.out)).toEqual(summaryOf(direct.out));
    expect(summaryOf(r.out).counts['kernel']).toBeGreaterThan(0);
    // The report keeps its own name: in the printed line and as the stored trace's title.
    expect(r.out).toMatch(/^step\.nsys-rep \(61 bytes\): nsys-sqlite,/);
    expect(loadTrace(await readFile(out)).meta.title).toBe('step.nsys-rep');

    const [call] = await callsOf(dir);
    expect(call!.args.slice(0, 5)).toEqual([
      'export',
      '--type',
      'sqlite',
      '--force-overwrite',
      'true',
    ]);
    expect(call!.args.at(-3)).toBe('--output');
    expect(path.basename(call!.args.at(-2)!)).toBe('step.sqlite');
    expect(path.basename(call!.args.at(-1)!)).toBe('step.nsys-rep');
    // Written where only this user could read it, and gone after.
    expect(call!.outputDirMode).toBe(0o700);
    expect(existsSync(call!.outputDir!)).toBe(false);
  });

  it('takes NSYS when no --nsys is given, and --nsys before NSYS', async () => {
    const good = await setUp('export');
    const bad = await setUp('fail');
    vi.stubEnv('NSYS', good.nsys);
    const fromEnv = await runCli(['import', good.report]);
    expect(fromEnv.code, fromEnv.err).toBe(0);
    vi.stubEnv('NSYS', bad.nsys);
    const fromOption = await runCli(['import', good.report, '--nsys', good.nsys]);
    expect(fromOption.code, fromOption.err).toBe(0);
    expect(await callsOf(good.dir)).toHaveLength(2);
    expect(await callsOf(bad.dir)).toHaveLength(0);
  });

  it('needs none of the server’s settings: a STREAMSCOPE_TOKEN that serve would refuse is no concern of import', async () => {
    const { nsys, report } = await setUp('export');
    vi.stubEnv('STREAMSCOPE_TOKEN', 'short');
    vi.stubEnv('NSYS', nsys);
    const r = await runCli(['import', report]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^step\.nsys-rep \(61 bytes\): nsys-sqlite,/);
  });

  it.skipIf(nsysInstalled)(
    'says where it looked for nsys and how to point at it when there is none (skipped where nsys is installed in a standard place)',
    async () => {
      const { dir, report } = await setUp('export');
      vi.stubEnv('NSYS', '');
      vi.stubEnv('PATH', path.join(dir, 'no-such-folder'));
      const r = await runCli(['import', report]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        'step.nsys-rep: this is an Nsight Systems report (.nsys-rep/.qdrep), which only nsys can read, and no nsys was found (looked at --nsys (not given), NSYS (not set), PATH, /opt/nvidia/nsight-systems/*/bin/nsys, /opt/nvidia/nsight-systems-cli/*/bin/nsys, /usr/local/cuda/bin/nsys, /usr/local/cuda-*/bin/nsys, /usr/local/cuda*/nsight-systems-*/bin/nsys, /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys); install Nsight Systems, or point streamscope at nsys with --nsys PATH or NSYS=PATH',
      );
      expect(r.err).toContain('nsys export --type sqlite -o step.sqlite step.nsys-rep');
    },
  );

  it('names an --nsys that is not there instead of searching on', async () => {
    const { dir, report } = await setUp('export');
    const r = await runCli(['import', report, '--nsys', path.join(dir, 'missing', 'nsys')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `the nsys named is not usable (--nsys ${path.join(dir, 'missing', 'nsys')}: no such file)`,
    );
    expect(await callsOf(dir)).toEqual([]);
  });

  it('says nsys failed: the file, its path and version, the exit status and the end of its stderr', async () => {
    const { dir, nsys, report } = await setUp('fail');
    // The server's token, were it set, never reaches nsys.
    vi.stubEnv('STREAMSCOPE_TOKEN', 'secret-token-of-this-server');
    const r = await runCli(['import', report, '--nsys', nsys]);
    expect(r.code).toBe(1);
    // nsys named the report by its path in the private folder: the message by its name alone.
    expect(r.err.trim()).toBe(
      `streamscope import: step.nsys-rep: nsys could not export the report: ${nsys} (version 2025.3.1.90-253135822126v0) exited with status 3; it said: Report step.nsys-rep was written by nsys 2025.5.1. | nsys 2025.3.1 cannot fully export reports written by newer nsys versions. | Please use nsys 2025.5.1 or newer to export this report.`,
    );
    const [call] = await callsOf(dir);
    expect(existsSync(call!.outputDir!)).toBe(false);
    expect(call!.sawToken).toBe(false);
  });

  it('refuses an export that nsys says it made but did not write', async () => {
    const { dir, nsys, report } = await setUp('no-output');
    const r = await runCli(['import', report, '--nsys', nsys]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `${nsys} (version 2025.3.1.90-253135822126v0) exited with status 0 but wrote no SQLite export; it printed nothing`,
    );
    const [call] = await callsOf(dir);
    expect(existsSync(call!.outputDir!)).toBe(false);
  });

  it('stops an export past --nsys-timeout-s, ending nsys and removing its folder', async () => {
    const { dir, nsys, report } = await setUp('hang');
    const r = await runCli(['import', report, '--nsys', nsys, '--nsys-timeout-s', '1']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `step.nsys-rep: nsys could not export the report: ${nsys} (version 2025.3.1.90-253135822126v0) did not finish within 1 s and was stopped (--nsys-timeout-s N raises the limit)`,
    );
    const pid = Number(await readFile(path.join(dir, 'hang.pid'), 'utf8'));
    expect(isRunning(pid)).toBe(false);
    const [call] = await callsOf(dir);
    expect(existsSync(call!.outputDir!)).toBe(false);
  });

  it('stops nsys and removes its folder when the import is cancelled', async () => {
    const { dir, nsys, report } = await setUp('hang');
    const temp = await mkdtemp(path.join(tmpdir(), 'import-report-temp-'));
    const cancel = new AbortController();
    const importing = importFile(
      report,
      { fileName: 'step.nsys-rep', signal: cancel.signal },
      temp,
      { optionPath: nsys },
    );
    const pidFile = path.join(dir, 'hang.pid');
    // The stand-in writes its pid once it runs; the import waits on it meanwhile.
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 20_000 });
    cancel.abort();
    await expect(importing).rejects.toThrow(
      'step.nsys-rep: import cancelled while nsys exported the report',
    );
    expect(isRunning(Number(await readFile(pidFile, 'utf8')))).toBe(false);
    expect(await readdir(temp)).toEqual([]);
  });

  it.each([
    ['interrupted (Ctrl-C)', 'SIGINT', 130],
    ['hung up on (its terminal closed)', 'SIGHUP', 129],
  ] as const)(
    'ends nsys and removes its folder when the command is %s',
    async (_, signal, code) => {
      const { dir, nsys, report } = await setUp('hang');
      // The command as a user runs it (`pnpm streamscope`), in a process of its own to interrupt.
      const launcher = path.join(repoRoot, 'apps/server/scripts/streamscope.mjs');
      const command = spawn(process.execPath, [launcher, 'import', report, '--nsys', nsys], {
        cwd: repoRoot,
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => command.once('exit', resolve));
      const pidFile = path.join(dir, 'hang.pid');
      await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 60_000 });
      command.kill(signal);
      expect(await exited).toBe(code);
      const pid = Number(await readFile(pidFile, 'utf8'));
      await vi.waitFor(() => expect(isRunning(pid)).toBe(false));
      const [call] = await callsOf(dir);
      expect(existsSync(call!.outputDir!)).toBe(false);
    },
    90_000,
  );
});
