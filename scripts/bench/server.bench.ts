import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { saveTrace, syntheticTrace } from '@streamscope/trace';
import { nodeScript, root, serve, stop } from './bench-server.ts';
import type { Report } from './report.ts';

// The server under hostile load, as `pnpm streamscope serve` runs it (tsx, worker threads), on
// loopback. Two figures:
//  - export_peak_rss_mb_2m_ops: peak RSS (VmHWM) of a freshly started server process, worker
//    threads included, that has served one Chrome export of a stored 2M-op trace (about 490 MB
//    of JSON, read by this process as it comes). Also its first byte and its rate.
//  - health_p99_ms_under_load: p99 of GET /api/health, probed every 5 ms from another process
//    (a probe delayed past the next one's time counts the ones it held up), while 4 large
//    uploads are parsed (a PyTorch/kineto trace: the recorded fixture's 3179 events
//    110 times over, about 66 MB each), the 2M-op trace is analyzed and exported, all at once.
const probeScript = path.join(root, 'scripts', 'bench', 'server-health-probe.ts');
const kinetoFixture = path.join(root, 'fixtures', 'kineto', 'train.pt.trace.json.gz');
// Knobs: STREAMSCOPE_BENCH_EXPORT_OPS, the exported trace's ops (2M by default; the export
// figures are named by it: 10m_ops for 10M); STREAMSCOPE_BENCH_EXPORT_ONLY=1 stops after them.
const bigOps = Number(process.env['STREAMSCOPE_BENCH_EXPORT_OPS'] ?? 2_000_000);
const opsTag = `${bigOps / 1e6}m_ops`;
const exportOnly = process.env['STREAMSCOPE_BENCH_EXPORT_ONLY'] === '1';
const importCopies = 110;
const imports = 4;

/**
 * A large kineto trace: the recorded fixture's step `copies` times, one after another (times,
 * correlation, external and flow ids shifted per copy), metadata once.
 */
async function writeKinetoTrace(file: string, copies: number): Promise<void> {
  const fixture = JSON.parse(gunzipSync(await readFile(kinetoFixture)).toString('utf8')) as {
    traceEvents: Record<string, unknown>[];
  } & Record<string, unknown>;
  const { traceEvents, ...header } = fixture;
  const once = traceEvents.filter(
    (e) => e['ph'] === 'M' || e['ph'] === 'i' || e['cat'] === 'Trace',
  );
  const repeated = traceEvents.filter((e) => !once.includes(e));
  const stepUs = 31_000;
  const lines = function* (): Generator<string> {
    yield `${JSON.stringify(header).slice(0, -1)},"traceEvents":[\n`;
    yield once.map((e) => JSON.stringify(e)).join(',\n');
    for (let k = 0; k < copies; k++) {
      const shift = k * 1_000_000;
      let chunk = '';
      for (const event of repeated) {
        const args = event['args'] as Record<string, unknown> | undefined;
        const moved: Record<string, unknown> = {
          ...event,
          ts: (event['ts'] as number) + k * stepUs,
        };
        if (typeof event['id'] === 'number') {
          moved['id'] = event['id'] + shift;
        }
        if (args !== undefined) {
          const shifted = { ...args };
          for (const key of ['External id', 'correlation']) {
            if (typeof args[key] === 'number') {
              shifted[key] = args[key] + shift;
            }
          }
          moved['args'] = shifted;
        }
        chunk += `,\n${JSON.stringify(moved)}`;
      }
      yield chunk;
    }
    yield '\n]}\n';
  };
  await pipeline(Readable.from(lines()), createWriteStream(file));
}

/** Resident memory of a process in MB (Linux /proc): now (VmRSS) or its peak so far (VmHWM). */
async function rssMb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]);
  return kb / 1024;
}

async function upload(base: string, file: string, fileName: string): Promise<string> {
  const response = await fetch(`${base}/api/imports?filename=${encodeURIComponent(fileName)}`, {
    method: 'PUT',
    headers: { 'content-length': String((await stat(file)).size) },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
    duplex: 'half',
  });
  const body = (await response.json()) as { id?: string };
  if (!response.ok || body.id === undefined) {
    throw new Error(`upload of ${fileName} failed (${response.status}): ${JSON.stringify(body)}`);
  }
  return body.id;
}

/** Downloads the Chrome export, counting bytes; when the first arrived and how fast the rest did. */
async function exportOf(
  base: string,
  id: string,
): Promise<{ bytes: number; firstByteMs: number; totalMs: number }> {
  const t0 = performance.now();
  const response = await fetch(`${base}/api/traces/${id}/export?format=chrome`);
  if (!response.ok || response.body === null) {
    throw new Error(`export failed (${response.status}): ${await response.text()}`);
  }
  let bytes = 0;
  let firstByteMs = -1;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    if (firstByteMs < 0) {
      firstByteMs = performance.now() - t0;
    }
    bytes += chunk.length;
  }
  return { bytes, firstByteMs, totalMs: performance.now() - t0 };
}

async function analysisOf(base: string, id: string): Promise<void> {
  const response = await fetch(`${base}/api/traces/${id}/analysis`);
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`analysis failed (${response.status}): ${text}`);
  }
}

interface ProbeFigures {
  readonly count: number;
  readonly failures: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

function checkProbes(probed: ProbeFigures): void {
  if (probed.failures > 0 || probed.count === 0) {
    throw new Error(`health probes failed: ${JSON.stringify(probed)}`);
  }
}

/** A workload check (which runs in a worker thread), then a second of quiet. */
async function warmUp(base: string): Promise<void> {
  const response = await fetch(`${base}/api/workloads/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'warm',
      threads: [{ name: 'main', ops: [{ op: 'deviceSync' }] }],
    }),
  });
  if (!response.ok) {
    throw new Error(`warm-up failed (${response.status}): ${await response.text()}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

async function probeWhile(base: string, work: () => Promise<void>): Promise<ProbeFigures> {
  const probe = nodeScript(probeScript, [`${base}/api/health`]);
  const lines = createInterface({ input: probe.stdout });
  const figures = new Promise<string>((resolve) => lines.once('line', resolve));
  try {
    await work();
  } finally {
    probe.stdin.end();
  }
  return JSON.parse(await figures) as ProbeFigures;
}

export async function run(report: Report): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'streamscope-server-bench-'));
  try {
    const bigFile = path.join(dir, 'big.sstrace');
    await writeFile(bigFile, saveTrace(syntheticTrace(bigOps)));
    const importFile = path.join(dir, 'import.pt.trace.json');
    await writeKinetoTrace(importFile, importCopies);
    const dataDir = path.join(dir, 'data');

    // The 2M-op trace goes in through one server; a fresh one serves the export, so its peak
    // memory is the export's, not the upload's.
    const seeding = await serve(dataDir);
    const bigId = await upload(seeding.base, bigFile, 'big.sstrace');
    await stop(seeding);

    const server = await serve(dataDir);
    try {
      // Warm: its worker thread has started and loaded its modules, as on a server in use.
      await warmUp(server.base);
      report('server.idle_rss_mb', Math.round(await rssMb(server.child.pid!, 'VmRSS')), 'MB');
      const exported = await exportOf(server.base, bigId);
      report(
        `server.export_peak_rss_mb_${opsTag}`,
        Math.round(await rssMb(server.child.pid!, 'VmHWM')),
        'MB',
      );
      report(`server.export_first_byte_ms_${opsTag}`, Math.round(exported.firstByteMs), 'ms');
      report(
        `server.export_mb_per_s_${opsTag}`,
        exported.bytes / 1e6 / (exported.totalMs / 1000),
        'MB/s',
      );
      report(`server.export_bytes_${opsTag}`, exported.bytes, 'bytes');
      if (exportOnly) {
        return;
      }

      const probed = await probeWhile(server.base, async () => {
        await Promise.all([
          ...Array.from({ length: imports }, (_, i) =>
            upload(server.base, importFile, `load-${i}.pt.trace.json`),
          ),
          analysisOf(server.base, bigId),
          exportOf(server.base, bigId),
        ]);
      });
      checkProbes(probed);
      report('server.health_p99_ms_under_load', probed.p99Ms, 'ms');
      report('server.health_p50_ms_under_load', probed.p50Ms, 'ms');
      report('server.health_max_ms_under_load', probed.maxMs, 'ms');
      report('server.health_probes_under_load', probed.count, 'probes');
      // The same without the uploads: what the worker threads leave of the event loop, apart
      // from storing imports (which the import service does on the event loop).
      const workersOnly = await probeWhile(server.base, async () => {
        await Promise.all([analysisOf(server.base, bigId), exportOf(server.base, bigId)]);
      });
      checkProbes(workersOnly);
      report('server.health_p99_ms_under_analysis_export', workersOnly.p99Ms, 'ms');
      report('server.health_max_ms_under_analysis_export', workersOnly.maxMs, 'ms');
    } finally {
      await stop(server);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
