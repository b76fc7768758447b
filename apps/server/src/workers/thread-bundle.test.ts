import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerWorkers } from './server-workers.ts';
import type { ThreadScript } from './thread-script.ts';
import { bundleThreads } from './thread-bundle.ts';
import { WorkerPool } from './worker-pool.ts';

// `serve` starts its worker threads on one esbuild bundle of their code instead of the sources
// through tsx: the same tasks must give the same answers from it, byte for byte.

const fixtures = path.resolve(import.meta.dirname, '../../../../fixtures');
let threads: ThreadScript;
let dir = '';
let fromBundle: ServerWorkers;
let fromSources: ServerWorkers;

beforeAll(async () => {
  threads = (await bundleThreads())!;
  dir = await mkdtemp(path.join(os.tmpdir(), 'thread-bundle-'));
  fromBundle = new ServerWorkers(new WorkerPool({ size: 1, script: threads }));
  fromSources = new ServerWorkers(new WorkerPool({ size: 1 }));
}, 60_000);

afterAll(async () => {
  await Promise.all([fromBundle.pool.close(), fromSources.pool.close()]);
  await rm(dir, { recursive: true, force: true });
});

async function imported(workers: ServerWorkers, file: string, outName: string) {
  return await workers.importFile(path.join(fixtures, file), {
    fileName: path.basename(file),
    maxBytes: Number.POSITIVE_INFINITY,
    signal: new AbortController().signal,
    outBase: path.join(dir, `${path.basename(file)}-${outName}`),
    onProgress: () => undefined,
  });
}

describe('worker threads on one bundle of their code', () => {
  it('is a folder with the pool entry and what it needs beside it', () => {
    expect(threads.entry).toBeUndefined();
    const folder = path.dirname(new URL(threads.url).pathname);
    // in-use: this process's hold on it (bundle-cache.mjs).
    expect(readdirSync(folder).sort()).toEqual(
      [
        'child-host.mjs',
        'in-use',
        'metadata-worker.mjs',
        'sql-wasm.wasm',
        'worker-main.mjs',
      ].sort(),
    );
  });

  it.each([
    'kineto/train.pt.trace.json.gz',
    'nsys/2025.3.1/nccl2.sqlite.gz',
    'nsys/2025.3.1/multi.json.gz',
  ])(
    'imports %s and analyzes it as the sources do',
    async (file) => {
      const [a, b] = await Promise.all([
        imported(fromBundle, file, 'bundle'),
        imported(fromSources, file, 'sources'),
      ]);
      expect(a.opCount).toBeGreaterThan(100);
      expect(a.tracePath).not.toBe(b.tracePath);
      expect((await readFile(a.tracePath)).equals(await readFile(b.tracePath))).toBe(true);
      expect(a.warnings).toEqual(b.warnings);
      const ref = { path: a.tracePath, partial: false, opCount: a.opCount };
      const [x, y] = await Promise.all([fromBundle.analyze(ref), fromSources.analyze(ref)]);
      expect(x).toBe(y);
      expect(JSON.parse(x)).toHaveProperty('findings');
    },
    60_000,
  );

  it('is the same folder for the next server while its sources are unchanged', async () => {
    expect((await bundleThreads())!.url.href).toBe(threads.url.href);
  });
});
