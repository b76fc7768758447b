import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { RawData } from 'ws';
import { WebSocket } from 'ws';
import { createBackends, resolveAuto } from '@streamscope/executor';
import { TraceDecoder, loadTrace } from '@streamscope/trace';
import { summarize } from '../src/integrations/trace-tools.ts';
import { workloadService } from '../src/integrations/workload-service.ts';
import { decodeLiveFrame } from '../src/live/protocol.ts';
import { startServer } from '../src/server.ts';

// Runs ON THE GPU MACHINE, bundled by build-gpu-check.mjs: the real server on `auto` (cuda when
// the addon and a device answer), two preset runs posted at once (one GPU, so the second waits),
// both watched live, one watcher dropped and resumed. Writes $OUT/gpu-serve.json.
const here = path.dirname(new URL(import.meta.url).pathname);
const out = process.env['OUT'] ?? '.';
const started = performance.now();
const since = (): number => Math.round(performance.now() - started);

const backends = createBackends({
  addonPath: path.resolve('native/build/streamscope_native.node'),
  childScript: path.join(here, 'child-host.mjs'),
});
const server = await startServer({
  dataDir: await mkdtemp(path.join(tmpdir(), 'streamscope-gpu-')),
  port: 0,
  backendSet: { backends, resolveAuto: () => resolveAuto(backends) },
  workloads: workloadService(),
  summarize,
  sqlWasmPath: path.join(here, 'sql-wasm.wasm'),
  log: (line) => process.stderr.write(`${line}\n`),
});
const base = `http://127.0.0.1:${server.port}`;

interface Watch {
  readonly messages: { type: string; atMs: number; [key: string]: unknown }[];
  readonly frames: { seq: number; atMs: number; opsAfter: number }[];
  readonly decoder: TraceDecoder;
  socket: WebSocket;
}

function watch(runId: string, previous?: Watch, dropAfterFrames?: number): Promise<Watch> {
  const state: Watch = previous ?? {
    messages: [],
    frames: [],
    decoder: new TraceDecoder(),
    socket: undefined as unknown as WebSocket,
  };
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/api/live`);
  state.socket = socket;
  return new Promise((resolve, reject) => {
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'subscribe', runId, fromSeq: state.frames.length })),
    );
    socket.on('error', reject);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = data as Buffer;
      if (isBinary) {
        const frame = decodeLiveFrame(bytes);
        state.decoder.apply(frame.batches);
        state.frames.push({
          seq: frame.seq,
          atMs: since(),
          opsAfter: state.decoder.trace.ops.count,
        });
        if (dropAfterFrames !== undefined && state.frames.length >= dropAfterFrames) {
          socket.terminate();
          resolve(state);
        }
        return;
      }
      const message = JSON.parse(bytes.toString('utf8')) as { type: string };
      state.messages.push({ ...message, atMs: since() });
      if (['finished', 'failed', 'cancelled', 'error'].includes(message.type)) {
        socket.close();
        resolve(state);
      }
    });
  });
}

async function post(body: object): Promise<{ id: string; position: number }> {
  const response = await fetch(`${base}/api/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { id: string; position: number };
}

const report: Record<string, unknown> = {
  auto: server.autoBackend,
  probe: await backends.cuda.status(),
};
const first = await post({ preset: 'overlap-blog', pace: 'realtime' });
const second = await post({ preset: 'pipeline', pace: 'realtime' });
report['posted'] = { first, second };
report['entriesRightAfterPost'] = await (await fetch(`${base}/api/traces`)).json();
// The second run's watcher drops after 2 frames and resumes with fromSeq.
const [firstWatch, secondPartial] = await Promise.all([
  watch(first.id),
  watch(second.id, undefined, 2),
]);
const secondWatch = await watch(second.id, secondPartial);
for (const [name, run, w] of [
  ['first', first, firstWatch],
  ['second', second, secondWatch],
] as const) {
  const stored = loadTrace(
    new Uint8Array(await (await fetch(`${base}/api/traces/${run.id}/data`)).arrayBuffer()),
  );
  const seqs = w.frames.map((f) => f.seq);
  report[name] = {
    entry: await (await fetch(`${base}/api/traces/${run.id}`)).json(),
    messages: w.messages.map((m) => ({
      type: m.type,
      atMs: m.atMs,
      ...(m.type === 'failed' ? { reason: m['reason'] } : {}),
    })),
    frames: w.frames.length,
    framesInOrderOnce: seqs.every((s, i) => s === i),
    frameTimesMs: w.frames.map((f) => f.atMs),
    opsReceived: w.decoder.trace.ops.count,
    opsStored: stored.ops.count,
    timingMethod: stored.meta.timingMethod,
  };
}
writeFileSync(path.join(out, 'gpu-serve.json'), `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(report, null, 1).slice(0, 6000)}\n`);
await server.close();
