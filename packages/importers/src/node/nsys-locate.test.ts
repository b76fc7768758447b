import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { locateNsys, nsysPathProblem } from './nsys-locate.ts';

/** An executable file at `root/relative` (folders made). */
async function executable(root: string, relative: string, mode = 0o755): Promise<string> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '#!/bin/sh\n');
  await chmod(file, mode);
  return file;
}

async function tempRoot(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'nsys-locate-'));
}

describe('locateNsys', () => {
  it('takes the option first, then NSYS, then PATH, then the install places', async () => {
    const root = await tempRoot();
    const option = await executable(root, 'option/nsys');
    const env = await executable(root, 'env/nsys');
    const onPath = await executable(root, 'bin/nsys');
    const installed = await executable(root, 'opt/2025.1.1/bin/nsys');
    const patterns = [path.join(root, 'opt/*/bin/nsys')];
    const searchPath = [path.join(root, 'empty'), path.join(root, 'bin')].join(path.delimiter);
    const all = { optionPath: option, envPath: env, searchPath, installPatterns: patterns };
    expect(await locateNsys(all)).toEqual({ found: true, path: option, via: '--nsys' });
    expect(await locateNsys({ ...all, optionPath: undefined })).toEqual({
      found: true,
      path: env,
      via: 'NSYS',
    });
    expect(await locateNsys({ searchPath, installPatterns: patterns })).toEqual({
      found: true,
      path: onPath,
      via: 'PATH',
    });
    expect(await locateNsys({ searchPath: '', installPatterns: patterns })).toEqual({
      found: true,
      path: installed,
      via: patterns[0],
    });
  });

  it('takes the newest of the install places by the version in its real path', async () => {
    const root = await tempRoot();
    await executable(root, 'opt/nsight-systems/2024.6.2/bin/nsys');
    const newest = await executable(root, 'opt/nsight-systems/2025.3.1/bin/nsys');
    await executable(root, 'opt/nsight-systems/2025.10.0-broken/bin/nsys', 0o644); // not executable
    // A toolkit's copy says its own version (2024.5.1) in its real path; "cuda" links to it.
    const toolkitNsys = await executable(root, 'local/cuda-12.8/nsight-systems-2024.5.1/bin/nsys');
    await mkdir(path.join(root, 'local/cuda-12.8/bin'), { recursive: true });
    await symlink(toolkitNsys, path.join(root, 'local/cuda-12.8/bin/nsys'));
    await symlink(path.join(root, 'local/cuda-12.8'), path.join(root, 'local/cuda'));
    const patterns = [
      path.join(root, 'opt/nsight-systems/*/bin/nsys'),
      path.join(root, 'local/cuda/bin/nsys'),
      path.join(root, 'local/cuda-*/bin/nsys'),
    ];
    expect(await locateNsys({ installPatterns: patterns })).toMatchObject({ path: newest });
    // Without the standalone installs the toolkit's is found once, through the first pattern.
    expect(await locateNsys({ installPatterns: patterns.slice(1) })).toEqual({
      found: true,
      path: path.join(root, 'local/cuda/bin/nsys'),
      via: patterns[1],
    });
    // A toolkit's own copy with no wrapper in its bin/, found through a pattern with two `*`s.
    const bundled = await executable(root, 'local/cuda-13.0/nsight-systems-2025.3.1/bin/nsys');
    expect(
      await locateNsys({
        installPatterns: [path.join(root, 'local/cuda*/nsight-systems-*/bin/nsys')],
      }),
    ).toMatchObject({ found: true, path: bundled });
  });

  it('ranks the copy Nsight Compute carries below any Nsight Systems: its path says Compute’s version, not nsys’s', async () => {
    const root = await tempRoot();
    const systems = await executable(root, 'opt/nsight-systems/2025.2.1/bin/nsys');
    const compute = await executable(
      root,
      'opt/nsight-compute/2025.3.0/host/target-linux-x64/nsys',
    );
    const toolkit = await executable(root, 'local/cuda-12.8/bin/nsys');
    const patterns = [
      path.join(root, 'opt/nsight-systems/*/bin/nsys'),
      path.join(root, 'local/cuda-*/bin/nsys'),
      path.join(root, 'opt/nsight-compute/*/host/target-linux-x64/nsys'),
    ];
    expect(await locateNsys({ installPatterns: patterns })).toMatchObject({ path: systems });
    // Even a toolkit's wrapper, whose path says only the toolkit's version.
    expect(await locateNsys({ installPatterns: patterns.slice(1) })).toMatchObject({
      path: toolkit,
    });
    // Where it is the only one, it is taken.
    expect(await locateNsys({ installPatterns: patterns.slice(2) })).toMatchObject({
      found: true,
      path: compute,
    });
  });

  it('lists where it looked when nothing is found, and never searches PATH’s empty or relative entries', async () => {
    const root = await tempRoot();
    await executable(root, 'nsys');
    const patterns = [path.join(root, 'opt/*/bin/nsys')];
    const relative = path.relative(process.cwd(), root);
    expect(
      await locateNsys({
        searchPath: ['', relative].join(path.delimiter),
        installPatterns: patterns,
      }),
    ).toEqual({
      found: false,
      looked: ['--nsys (not given)', 'NSYS (not set)', 'PATH', patterns[0]],
    });
  });

  it('says why an option or NSYS names no usable nsys, without searching past it', async () => {
    const root = await tempRoot();
    const plain = await executable(root, 'plain', 0o644);
    await executable(root, 'bin/nsys');
    const searchPath = path.join(root, 'bin');
    expect(await locateNsys({ envPath: plain, searchPath })).toEqual({
      found: false,
      looked: ['--nsys (not given)', 'NSYS'],
      unusable: `NSYS ${plain}: not executable`,
    });
    expect(await nsysPathProblem(root)).toBe('not a file');
    expect(await nsysPathProblem(path.join(root, 'missing'))).toBe('no such file');
    // A bare name is a command on PATH.
    expect(await nsysPathProblem('nsys', searchPath)).toBeUndefined();
    expect(await nsysPathProblem('nsys-2025', searchPath)).toBe('not found on PATH');
    // An empty --nsys (`--nsys "$UNSET"`) is said, not taken for no --nsys; an empty NSYS is unset.
    expect(await locateNsys({ optionPath: '', searchPath })).toEqual({
      found: false,
      looked: ['--nsys'],
      unusable: '--nsys : empty',
    });
    expect(await nsysPathProblem('', searchPath)).toBe('empty');
    expect(await locateNsys({ envPath: '', searchPath })).toMatchObject({
      found: true,
      via: 'PATH',
    });
  });
});
