import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerWorkers } from './server-workers.ts';
import type { BundledThreads } from './thread-bundle.ts';
import { bundleThreads, removeStaleFolders } from './thread-bundle.ts';
import { WorkerPool } from './worker-pool.ts';

// `serve` starts its worker threads on one esbuild bundle of their code instead of the sources
// through tsx: the same tasks must give the same answers from it, byte for byte.

const fixtures = path.resolve(import.meta.dirname, '../../../../fixtures');
let threads: BundledThreads;
let dir = '';
let fromBundle: ServerWorkers;
let fromSources: ServerWorkers;

beforeAll(async () => {
  threads = (await bundleThreads())!;
  dir = await mkdtemp(path.join(os.tmpdir(), 'thread-bundle-'));
  fromBundle = new ServerWorkers(new WorkerPool({ size: 1, script: threads.script }));
  fromSources = new ServerWorkers(new WorkerPool({ size: 1 }));
}, 60_000);

afterAll(async () => {
  await Promise.all([fromBundle.pool.close(), fromSources.pool.close()]);
  threads.remove();
  await rm(dir, { recursive: true, force: true });
});

async function imported(workers: ServerWorkers, file: string) {
  return await workers.importFile(path.join(fixtures, file), {
    fileName: path.basename(file),
    maxBytes: Number.POSITIVE_INFINITY,
    signal: new AbortController().signal,
    onProgress: () => undefined,
  });
}

describe('worker threads on one bundle of their code', () => {
  it('is a folder with the pool entry and what it needs beside it', () => {
    expect(threads.script.entry).toBeUndefined();
    const folder = path.dirname(new URL(threads.script.url).pathname);
    expect(readdirSync(folder).sort()).toEqual(
      ['child-host.mjs', 'metadata-worker.mjs', 'sql-wasm.wasm', 'worker-main.mjs'].sort(),
    );
  });

  it.each([
    'kineto/train.pt.trace.json.gz',
    'nsys/2025.3.1/nccl2.sqlite.gz',
    'nsys/2025.3.1/multi.json.gz',
  ])(
    'imports %s and analyzes it as the sources do',
    async (file) => {
      const [a, b] = await Promise.all([imported(fromBundle, file), imported(fromSources, file)]);
      expect(a.opCount).toBeGreaterThan(100);
      expect(Buffer.from(a.traceBytes).equals(Buffer.from(b.traceBytes))).toBe(true);
      expect(a.warnings).toEqual(b.warnings);
      const stored = path.join(dir, `${path.basename(file)}.sstrace`);
      await writeFile(stored, a.traceBytes);
      const ref = { path: stored, partial: false, opCount: a.opCount };
      const [x, y] = await Promise.all([fromBundle.analyze(ref), fromSources.analyze(ref)]);
      expect(x).toBe(y);
      expect(JSON.parse(x)).toHaveProperty('findings');
    },
    60_000,
  );

  it('leaves nothing behind once removed', () => {
    const folder = path.dirname(new URL(threads.script.url).pathname);
    expect(existsSync(folder)).toBe(true);
    threads.remove();
    expect(existsSync(folder)).toBe(false);
  });
});

describe('bundle folders of servers that are gone', () => {
  it('are removed; those of running servers and anything else stay', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'stale-threads-'));
    const ended = spawnSync(process.execPath, ['-e', '0']);
    const names = [
      `streamscope-threads-${ended.pid}-a1B2c3`,
      `streamscope-threads-${process.pid}-d4E5f6`,
      'streamscope-threads-notapid-g7',
      'something-else',
    ];
    for (const name of names) {
      await mkdir(path.join(tmp, name));
    }
    removeStaleFolders(tmp);
    expect(readdirSync(tmp).sort()).toEqual(names.slice(1).sort());
    await rm(tmp, { recursive: true, force: true });
  });
});
