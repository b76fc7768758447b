import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTrace } from '@streamscope/trace';
import type { TraceEntry } from '../../api-types.ts';
import { defaultCollectorCheckPath, defaultCollectorPath } from '../../profile/collector-paths.ts';
import type { TestServer } from '../../test-support/test-server.ts';
import { startTestServer } from '../../test-support/test-server.ts';
import { runCli } from '../run-cli-for-test.ts';
import { defaultTitle } from './profile.ts';

const node = process.execPath;
const built = existsSync(defaultCollectorPath) && existsSync(defaultCollectorCheckPath);
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'profile-cli-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// The collector's self-test stands in for a CUDA program: it loads the real collector, which
// reads the environment `profile` set, and sends CUPTI-shaped records (no GPU here).
async function selfTestProgram(steps: string): Promise<string[]> {
  const script = path.join(dir, 'program.txt');
  await writeFile(
    script,
    `context 1 0 7\napi runtime 211 50 1 1000 2000\nkernel 0 1 7 1 3000 9000 _Z4stepv\nflush\n${steps}`,
  );
  return [defaultCollectorCheckPath, defaultCollectorPath, script];
}

describe.skipIf(!existsSync(defaultCollectorPath))('streamscope profile', () => {
  it('says precisely that no CUDA activity was recorded, and exits with the command’s status', async () => {
    const out = path.join(dir, 'none.sstrace');
    const r = await runCli([
      'profile',
      '--data',
      dir,
      '--out',
      out,
      '--',
      node,
      '-e',
      'process.exit(3)',
    ]);
    expect(r.code).toBe(3);
    expect(r.err).toContain(
      'streamscope profile: no CUDA activity was recorded: the program exited with status 3 and no process of it initialized CUDA',
    );
    expect(existsSync(out)).toBe(false);
  });

  it('exits 128 + the signal number when the command is killed', async () => {
    const r = await runCli([
      'profile',
      '--data',
      dir,
      '--out',
      path.join(dir, 'x.sstrace'),
      '--',
      node,
      '-e',
      "process.kill(process.pid, 'SIGTERM')",
    ]);
    expect(r.code).toBe(143);
  });

  it('refuses to guess where to send records when no server runs and no --out is given', async () => {
    const r = await runCli(['profile', '--data', dir, '--', node, '-e', '']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('no streamscope server is running here');
  });

  it('needs a command after --', async () => {
    const r = await runCli(['profile', '--out', 'x.sstrace']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('give the command to profile after --');
  });

  it.skipIf(!built)('records a program on its own into --out when no server runs', async () => {
    const out = path.join(dir, 'run.sstrace');
    const r = await runCli([
      'profile',
      '--data',
      dir,
      '--out',
      out,
      ...(await selfTestProgram('exit\n')),
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('streamscope profile: recorded 2 ops from 1 process');
    const trace = loadTrace(new Uint8Array(await readFile(out)));
    expect(trace.ops.count).toBe(2);
    expect(trace.meta.title).toMatch(/^streamscope-inject-check /);
  });
});

describe.skipIf(!built)('streamscope profile against a server', () => {
  let t: TestServer;

  beforeEach(async () => {
    t = await startTestServer({
      profileTiming: { reconnectGraceMs: 300, exitGraceMs: 300, stopGraceMs: 5000 },
    });
  });

  afterEach(async () => {
    await t.close();
  });

  it('prints the live run’s dashboard URL at once, and Stop from the dashboard sends the program SIGINT', async () => {
    const cli = runCli([
      'profile',
      '--server',
      t.base,
      '--name',
      'stoppable',
      ...(await selfTestProgram('wait-stop 20000\nflush\nexit\n')),
    ]);
    let entry: TraceEntry | undefined;
    while (entry === undefined || (t.server.runs.liveTrace(entry.id)?.ops.count ?? 0) < 2) {
      const list = (await t.api('GET', '/api/traces', '/api/traces')).body as TraceEntry[];
      entry = list.find((e) => e.title === 'stoppable — live');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(
      (await t.api('POST', `/api/runs/${entry.id}/cancel`, '/api/runs/{id}/cancel')).status,
    ).toBe(202);
    const r = await cli;
    expect(r.err.split('\n')[0]).toBe(
      `streamscope profile: stoppable — live at http://127.0.0.1:${t.server.port}/#/trace/${entry.id}`,
    );
    expect(r.err).toContain('streamscope profile: stopped from the dashboard; 2 ops kept');
    expect(r.code).toBe(0); // the program handled its SIGINT and exited 0
  });

  it('downloads the stored trace for --out when a server recorded it', async () => {
    const out = path.join(dir, 'server.sstrace');
    const r = await runCli([
      'profile',
      '--server',
      t.base,
      '--out',
      out,
      ...(await selfTestProgram('exit\n')),
    ]);
    expect(r.code).toBe(0);
    expect(loadTrace(new Uint8Array(await readFile(out))).ops.count).toBe(2);
  });
});

describe('the default title', () => {
  it('stops at the first option, which may carry a secret', () => {
    expect(defaultTitle(['/usr/bin/python3', 'train.py', '--token', 'abc'])).toBe(
      'python3 train.py',
    );
    expect(defaultTitle(['torchrun', '--nproc-per-node', '2', 'train.py'])).toBe('torchrun');
  });
});
