import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import type { Report } from './report.ts';

// Server memory while it imports a gzip'd nsys SQLite export that inflates about 260× (under the
// importers' 300× bomb ratio and the 1 GiB upload limit): the peak and the resident set after the
// answer, of a fresh server process, for one upload and for two at once. The export is a real
// one (fixtures/nsys/2025.3.1/train.sqlite) with filler bytes after its last page (SQLite reads
// only the pages its header counts), so the figures are about the inflated bytes, not the trace.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const serverScript = path.join(root, 'apps', 'server', 'scripts', 'upload-memory-server.ts');
const baseExport = path.join(root, 'fixtures', 'nsys', '2025.3.1', 'train.sqlite');
const inflatedBytes = 1000 * 2 ** 20;
const mib = 2 ** 20;

/** train.sqlite, then blocks of 64 KiB with 165 random bytes each: about 260× under gzip. */
async function writeExport(gzPath: string): Promise<void> {
  const base = readFileSync(baseExport);
  const block = 64 * 1024;
  function* bytes(): Generator<Uint8Array> {
    yield base;
    for (let at = base.length; at < inflatedBytes; at += block) {
      const chunk = new Uint8Array(Math.min(block, inflatedBytes - at));
      randomFillSync(chunk, 0, Math.min(165, chunk.length));
      yield chunk;
    }
  }
  await pipeline(Readable.from(bytes()), createGzip(), createWriteStream(gzPath));
}

interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly port: number;
  memory(): Promise<{ peakBytes: number; rssBytes: number }>;
}

async function startBenchServer(): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', serverScript], {
    cwd: root,
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const pending: ((line: string) => void)[] = [];
  lines.on('line', (line) => pending.shift()?.(line));
  const nextLine = (): Promise<string> =>
    new Promise((resolve, reject) => {
      pending.push(resolve);
      child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
    });
  const { port } = JSON.parse(await nextLine()) as { port: number };
  return {
    child,
    port,
    async memory() {
      const line = nextLine();
      child.stdin.write('memory\n');
      return JSON.parse(await line) as { peakBytes: number; rssBytes: number };
    },
  };
}

function upload(port: number, gzPath: string, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: `/api/imports?filename=${name}`,
        headers: { 'content-type': 'application/octet-stream' },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () =>
          res.statusCode === 201
            ? resolve(res.statusCode)
            : reject(new Error(`upload answered ${res.statusCode}: ${body}`)),
        );
      },
    );
    req.on('error', reject);
    createReadStream(gzPath).pipe(req);
  });
}

export async function run(report: Report): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'streamscope-upload-memory-'));
  try {
    const gzPath = path.join(dir, 'big.sqlite.gz');
    await writeExport(gzPath);
    const gzBytes = (await stat(gzPath)).size;
    report('upload_memory_inflated', inflatedBytes / mib, 'MiB');
    report('upload_memory_gzip_ratio', inflatedBytes / gzBytes, 'x');
    for (const uploads of [1, 2]) {
      const server = await startBenchServer();
      try {
        const before = await server.memory();
        await Promise.all(
          Array.from({ length: uploads }, (_, i) =>
            upload(server.port, gzPath, `big-${i}.sqlite.gz`),
          ),
        );
        const after = await server.memory();
        // A second later: what the server keeps once the imports are over.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const idle = await server.memory();
        report(`upload_memory_${uploads}_rss_before`, before.rssBytes / mib, 'MiB');
        report(`upload_memory_${uploads}_peak_rss`, after.peakBytes / mib, 'MiB');
        report(`upload_memory_${uploads}_rss_after_1s`, idle.rssBytes / mib, 'MiB');
      } finally {
        server.child.stdin.end();
        await new Promise((resolve) => server.child.once('exit', resolve));
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
