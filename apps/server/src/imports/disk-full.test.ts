import type * as Fs from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { saveTrace } from '@streamscope/trace';
import { importForeign } from '../integrations/importers.ts';
import { containerTask } from '../workers/tasks/container-task.ts';
import type { ContainerReader } from './import-service.ts';
import type { ImportedTrace } from './imported-trace.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import type { ErrorBody } from '../test-support/upload.ts';
import { upload } from '../test-support/upload.ts';
import { kernelTrace } from '../test-support/kernel-trace.ts';

/** Which writes fail with ENOSPC: files whose path matches, after this many bytes. */
const disk = vi.hoisted(() => ({ full: undefined as RegExp | undefined, afterBytes: 0 }));

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
}

// The seam: node:fs write streams and node:fs/promises file handles that run out of space, as
// the real ones do on a full volume (the bytes before the limit land in the file).
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof Fs>();
  const createWriteStream = ((
    file: string,
    options?: Parameters<typeof real.createWriteStream>[1],
  ): Fs.WriteStream => {
    const stream = real.createWriteStream(file, options);
    if (disk.full?.test(file) === true) {
      const write = stream._write.bind(stream);
      let written = 0;
      (stream as unknown as { _writev: unknown })._writev = undefined;
      stream._write = (chunk: Buffer, encoding, callback) => {
        written += chunk.length;
        if (written > disk.afterBytes) {
          callback(enospc());
          return;
        }
        write(chunk, encoding, callback);
      };
    }
    return stream;
  }) as typeof real.createWriteStream;
  // Files written synchronously (a trace file, piece by piece): by descriptor.
  const fullFds = new Map<number, number>();
  const openSync = ((file: Fs.PathLike, ...rest: unknown[]) => {
    const fd = (real.openSync as (...args: unknown[]) => number)(file, ...rest);
    if (disk.full?.test(String(file)) === true) {
      fullFds.set(fd, 0);
    }
    return fd;
  }) as typeof real.openSync;
  const writeSync = ((fd: number, buffer: Uint8Array, at?: number | null, ...rest: unknown[]) => {
    const offset = at ?? 0;
    const written = fullFds.get(fd);
    if (written !== undefined) {
      const room = Math.max(0, disk.afterBytes - written);
      if (buffer.length - offset > room) {
        real.writeSync(fd, buffer, offset, room);
        fullFds.set(fd, written + room);
        throw enospc();
      }
      fullFds.set(fd, written + buffer.length - offset);
    }
    return (real.writeSync as (...args: unknown[]) => number)(fd, buffer, offset, ...rest);
  }) as typeof real.writeSync;
  const closeSync = ((fd: number) => {
    fullFds.delete(fd);
    real.closeSync(fd);
  }) as typeof real.closeSync;
  const mocked = { createWriteStream, openSync, writeSync, closeSync };
  return { ...real, default: { ...real, ...mocked }, ...mocked };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  const open = (async (file: string, ...rest: unknown[]) => {
    const handle = await (real.open as (...args: unknown[]) => ReturnType<typeof real.open>)(
      file,
      ...rest,
    );
    if (disk.full?.test(file) === true) {
      const writeFile = handle.writeFile.bind(handle);
      handle.writeFile = async (data: Parameters<typeof writeFile>[0]) => {
        const bytes = typeof data === 'string' ? Buffer.from(data) : data;
        await writeFile(bytes.subarray(0, disk.afterBytes));
        throw enospc();
      };
    }
    return handle;
  }) as typeof real.open;
  return { ...real, default: { ...real, open }, open };
});

let t: TestServer;
const logged: string[] = [];

beforeEach(async () => {
  disk.full = undefined;
  logged.length = 0;
  t = await startTestServer({ log: (line) => logged.push(line) });
});

afterEach(async () => {
  disk.full = undefined;
  await t.close();
});

/** The container check a worker runs, run on this thread. */
const containersInThisThread: ContainerReader = async (filePath, how) => {
  const { result } = await containerTask(
    filePath,
    how.fileName,
    how.maxOps ?? Number.POSITIVE_INFINITY,
    how.outBase,
    {
      taskId: 0,
      signal: how.signal,
      send: () => undefined,
      credit: () => Promise.resolve(),
      spareBuffer: () => undefined,
      notePeakMemory: () => undefined,
    },
  );
  return result as ImportedTrace;
};

function sampleTrace(opCount: number): Uint8Array {
  return saveTrace(kernelTrace(opCount));
}

function put(bytes: Uint8Array, uploadId: string, fileName = 'sample.sstrace') {
  return upload<ErrorBody>(t.base, bytes, fileName, { uploadId });
}

/** Every file left under the data directory but the metadata database itself. */
async function leftovers(): Promise<string[]> {
  const entries = await readdir(t.dataDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name !== 'streamscope.db')
    .map((e) => path.relative(t.dataDir, path.join(e.parentPath, e.name)));
}

const noSpace = {
  status: 507,
  body: { error: { code: 'no-space', message: 'no space left on the data volume' } },
};

describe('a full data volume', () => {
  it('answers 507 when the upload itself does not fit, logs it and removes the part file', async () => {
    disk.full = /\.part$/;
    disk.afterBytes = 4096;
    const bytes = sampleTrace(2000);
    expect(bytes.length).toBeGreaterThan(4096);
    expect(await put(bytes, 'full-part-1')).toMatchObject(noSpace);
    expect(await leftovers()).toEqual([]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("import of 'sample.sstrace': no space left on the data volume");
    expect(logged[0]).toContain('ENOSPC');
    const progress = await t.api(
      'GET',
      '/api/imports/full-part-1/progress',
      '/api/imports/{uploadId}/progress',
    );
    expect(progress.body).toMatchObject({
      phase: 'failed',
      error: 'no space left on the data volume',
    });
  });

  it('answers 507 when the trace file does not fit and leaves no temp file', async () => {
    // The stored form is written where the upload is checked (a worker thread, here this one so
    // that the full volume reaches it), beside the upload, then moved into traces/.
    await t.close();
    t = await startTestServer({
      readContainer: containersInThisThread,
      log: (line) => logged.push(line),
    });
    disk.full = /[/\\]uploads[/\\].*\.sstrace\..*\.tmp$/;
    disk.afterBytes = 100;
    expect(await put(sampleTrace(500), 'full-trace-1')).toMatchObject(noSpace);
    expect(await leftovers()).toEqual([]);
    expect(logged).toEqual([expect.stringContaining('no space left on the data volume')]);
    expect((await t.api('GET', '/api/traces', '/api/traces')).body).toEqual([]);
  });

  it("answers 507 when a gzip'd SQLite export does not fit inflated, and removes both files", async () => {
    await t.close();
    t = await startTestServer({ importForeign, log: (line) => logged.push(line) });
    disk.full = /\.inflated$/;
    disk.afterBytes = 64 * 1024;
    const gz = await readFile(
      path.resolve(
        path.dirname(fileURLToPath(import.meta.url)),
        '../../../../fixtures/nsys/2025.3.1/graph.sqlite.gz',
      ),
    );
    expect(await put(gz, 'full-inflate-1', 'graph.sqlite.gz')).toMatchObject(noSpace);
    expect(await leftovers()).toEqual([]);
    expect(logged).toEqual([expect.stringContaining('ENOSPC')]);
  });

  it('answers 507 when the metadata does not fit, lists nothing, and recovers once there is room', async () => {
    disk.full = /streamscope\.db\..*\.tmp$/;
    disk.afterBytes = 100;
    expect(await put(sampleTrace(500), 'full-meta-1')).toMatchObject(noSpace);
    expect(await leftovers()).toEqual([]);
    expect((await t.api('GET', '/api/traces', '/api/traces')).body).toEqual([]);
    disk.full = undefined;
    const next = await put(sampleTrace(10), 'room-again-1');
    expect(next.status).toBe(201);
    t = await t.restart();
    const listed = (await t.api('GET', '/api/traces', '/api/traces')).body as { opCount: number }[];
    expect(listed.map((e) => e.opCount)).toEqual([10]);
  });
});
