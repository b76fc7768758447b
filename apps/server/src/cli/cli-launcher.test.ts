import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultAddonPath } from '@streamscope/executor';
import { defaultWebDistDir } from '../http/static-web.ts';
import { defaultCollectorPath } from '../profile/collector-paths.ts';
import { runCli } from './run-cli-for-test.ts';

// `pnpm streamscope` runs apps/server/scripts/streamscope.mjs, which runs the CLI from its
// bundle: the same answers as the sources give, and the repository's files found from it.

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const launcher = path.join(repoRoot, 'apps', 'server', 'scripts', 'streamscope.mjs');
const fixture = 'fixtures/kineto/dataloader.pt.trace.json.gz';
const run = promisify(execFile);

interface Record {
  readonly dir: string;
  readonly inputs: readonly (readonly [string, number, number])[];
}

async function launch(
  args: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [launcher, ...args], { cwd: repoRoot });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

let record: Record;

beforeAll(async () => {
  // Makes the bundle if the sources changed since it was last made.
  await launch(['--help']);
  record = JSON.parse(
    readFileSync(path.join(repoRoot, 'apps', 'server', '.bundle', 'cli.json'), 'utf8'),
  ) as Record;
}, 120_000);

describe('the CLI launcher', () => {
  it('imports a trace from the bundle as the sources do', async () => {
    const fromBundle = await launch(['import', fixture, '--summary']);
    const fromSources = await runCli(['import', path.join(repoRoot, fixture), '--summary']);
    expect(fromBundle.code).toBe(0);
    expect(fromBundle.out).toBe(fromSources.out.replace(path.join(repoRoot, ''), ''));
    expect(fromBundle.out).toContain('987 kernels');
  });

  it('exits with the CLI status: 2 and the usage for an unknown command', async () => {
    const result = await launch(['no-such-command']);
    expect(result.code).toBe(2);
    expect(result.err).toContain("streamscope: unknown command 'no-such-command'");
  });

  it('runs from a bundle made from the CLI and its threads, with them beside it', () => {
    const inputs = record.inputs.map(([file]) => file);
    for (const source of ['cli/main.ts', 'workers/worker-main.ts', 'storage/metadata-worker.mjs']) {
      expect(inputs).toContain(path.join(repoRoot, 'apps', 'server', 'src', source));
    }
  });

  // A module that finds a file of the repository by a URL relative to its own must name the same
  // file from the bundle's folder, or the bundled CLI looks for it elsewhere.
  it('finds every file of the repository its modules name from their own URL', () => {
    const bundleDir = path.join(repoRoot, 'apps', 'server', '.bundle', record.dir);
    const relativeUrl = /new URL\(\s*'(\.\.\/[^']*)',\s*import\.meta\.url\s*\)/g;
    // The launcher's own scripts are inputs that make the bundle, not modules in it.
    const scripts = path.join(repoRoot, 'apps', 'server', 'scripts', '');
    const found: string[] = [];
    for (const [file] of record.inputs) {
      const bundled =
        !file.startsWith(scripts) && !file.includes(`${path.sep}node_modules${path.sep}`);
      if (!bundled || !/\.m?[jt]s$/.test(file)) {
        continue;
      }
      for (const match of readFileSync(file, 'utf8').matchAll(relativeUrl)) {
        const url = match[1]!;
        const fromSource = path.resolve(path.dirname(file), url);
        expect(path.resolve(bundleDir, url), `${url} in ${file}`).toBe(fromSource);
        found.push(path.relative(repoRoot, fromSource));
      }
    }
    // The native addon, the collector and its check, the web app's build.
    for (const file of [defaultAddonPath, defaultCollectorPath, defaultWebDistDir]) {
      expect(found).toContain(path.relative(repoRoot, file));
    }
  });
});
