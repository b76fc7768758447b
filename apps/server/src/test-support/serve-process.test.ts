import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServe } from '../../scripts/serve-process.mjs';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('spawnServe', () => {
  it('ends a server that never listens and says so, instead of waiting for ever', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'ss-serve-'));
    dirs.push(dataDir);
    // A "server" that writes to stderr and then hangs: node -e ignores the serve flags after it.
    const started = spawnServe({
      cwd: dataDir,
      node: ['-e', 'process.stderr.write("building…"); setInterval(() => {}, 1000)', '--'],
      dataDir,
      startLimitMs: 5000,
    });
    const error = await started.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // What it wrote follows (when it wrote before the limit: a loaded machine may start node late).
    expect(error?.message).toMatch(/^the server was not listening 5 s after it started: /);
    // It was ended before the start failed.
    expect(execSync('ps -eo args').toString()).not.toContain('setInterval(() => {}, 1000)');
  });
});
