import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshBundle, removeUnheld } from '../../scripts/bundle-cache.mjs';

// The cache `pnpm streamscope` runs from: a bundle made once, made again when a file it was made
// from changes, and a folder no longer current removed only once no running process holds it.

let root = '';
let source = '';
let builds = 0;

/** A stand-in for esbuild: the bundle is a copy of the source, which is its only input. */
async function copyBuild(outDir: string): Promise<string[]> {
  builds++;
  const { readFile } = await import('node:fs/promises');
  await writeFile(path.join(outDir, 'main.mjs'), await readFile(source));
  return [source];
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'bundle-cache-'));
  source = path.join(root, 'source.ts');
  await writeFile(source, 'export const version = 1;\n');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function folders(bundlesDir: string): string[] {
  return readdirSync(bundlesDir)
    .filter((f) => f.startsWith('cli-'))
    .sort();
}

describe('freshBundle', () => {
  it('makes a bundle once, reuses it while its inputs are unchanged, and makes it again when one changes', async () => {
    const bundlesDir = path.join(root, 'reuse');
    builds = 0;
    const first = await freshBundle({ bundlesDir, name: 'cli', build: copyBuild });
    expect(first.built).toBe(true);
    const again = await freshBundle({ bundlesDir, name: 'cli', build: copyBuild });
    expect(again).toEqual({ dir: first.dir, built: false });
    expect(builds).toBe(1);
    // This process holds the folder it runs from.
    expect(readdirSync(path.join(first.dir, 'in-use'))).toEqual([String(process.pid)]);

    await writeFile(source, 'export const version = 22;\n');
    const changed = await freshBundle({ bundlesDir, name: 'cli', build: copyBuild });
    expect(changed.built).toBe(true);
    expect(changed.dir).not.toBe(first.dir);
    expect(builds).toBe(2);
    // The old folder is still held by this process (as by a server started before the change).
    expect(folders(bundlesDir)).toHaveLength(2);
  });

  it('removes a folder that is not current once no running process holds it, and keeps one that is held', async () => {
    const bundlesDir = path.join(root, 'holds');
    const made = await freshBundle({ bundlesDir, name: 'cli', build: copyBuild });
    await writeFile(source, `export const version = ${Date.now()};\n`);
    const old = made.dir;
    // Held by a process that still runs, and by one that has exited.
    const sleeper = spawn('sleep', ['30']);
    const exited = spawn('true');
    await new Promise((resolve) => exited.once('exit', resolve));
    await writeFile(path.join(old, 'in-use', String(sleeper.pid)), '');
    await writeFile(path.join(old, 'in-use', String(exited.pid)), '');
    await rm(path.join(old, 'in-use', String(process.pid)));
    try {
      const next = await freshBundle({ bundlesDir, name: 'cli', build: copyBuild });
      expect(folders(bundlesDir)).toEqual([path.basename(next.dir), path.basename(old)].sort());
      // The hold of the process that exited is gone; the running one's is kept.
      expect(readdirSync(path.join(old, 'in-use'))).toEqual([String(sleeper.pid)]);
    } finally {
      sleeper.kill();
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    removeUnheld(bundlesDir, 'cli', path.join(bundlesDir, 'none'));
    // Now neither is held by a running process but this one's current folder.
    const left = folders(bundlesDir);
    expect(left).toHaveLength(1);
    expect(existsSync(old)).toBe(false);
  });

  it('runs from a current bundle it may not write in without holding it', async () => {
    const bundlesDir = path.join(root, 'read-only');
    const made = await freshBundle({ bundlesDir, name: 'cli', build: copyBuild });
    // As in an image whose bundle root made: the hold cannot be written (here: `in-use` is a file).
    await rm(path.join(made.dir, 'in-use'), { recursive: true });
    await writeFile(path.join(made.dir, 'in-use'), '');
    const built = builds;
    expect(await freshBundle({ bundlesDir, name: 'cli', build: copyBuild })).toEqual({
      dir: made.dir,
      built: false,
    });
    expect(builds).toBe(built);
  });

  it('leaves no folder and no record when the build fails, and says why', async () => {
    const bundlesDir = path.join(root, 'fails');
    await expect(
      freshBundle({
        bundlesDir,
        name: 'cli',
        build: () => Promise.reject(new Error('main.ts:3:7: ERROR: Expected ";"')),
      }),
    ).rejects.toThrow('main.ts:3:7');
    expect(readdirSync(bundlesDir)).toEqual([]);
  });
});
