import process from 'node:process';
import type { RawData } from 'ws';
import { WebSocket } from 'ws';
import { BatchKind, TraceDecoder, batchHeaderBytes } from '@streamscope/trace';
import { decodeLiveFrame } from '../src/live/protocol.ts';
import type { ClockWorkload } from './clock-backend.ts';

// The client half of `pnpm bench live`, in its own process so that clients and server do not
// share an event loop. Argument: JSON {port, clients, mode, workload}. Prints JSON figures.
interface Options {
  readonly port: number;
  readonly clients: number;
  readonly mode: 'throughput' | 'latency';
  readonly workload: ClockWorkload;
}

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
const nowNs = (): bigint => process.hrtime.bigint();

/** Ops records in a frame's batches, from the batch headers alone. */
function opsInBatches(batches: Uint8Array): number {
  const view = new DataView(batches.buffer, batches.byteOffset, batches.byteLength);
  let at = 0;
  let ops = 0;
  while (at < batches.length) {
    if (view.getUint8(at + 5) === BatchKind.Ops) {
      ops += view.getUint32(at + 8, true);
    }
    at += batchHeaderBytes + view.getUint32(at + 12, true);
  }
  return ops;
}

interface ClientResult {
  readonly ops: number;
  readonly endNs: bigint;
  /** Creation time (monotonic ns) of the first op, from the first frame that held ops. */
  readonly firstCreatedNs: bigint;
  readonly latenciesMs: number[];
}

function watch(socket: WebSocket, runId: string, decodeAll: boolean): Promise<ClientResult> {
  const decoder = new TraceDecoder();
  let ops = 0;
  let firstCreatedNs = -1n;
  const latenciesMs: number[] = [];
  return new Promise((resolve, reject) => {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = data as Buffer;
      if (!isBinary) {
        const message = JSON.parse(bytes.toString('utf8')) as { type: string; reason?: string };
        if (message.type === 'finished') {
          resolve({ ops, endNs: nowNs(), firstCreatedNs, latenciesMs });
        } else if (message.type === 'failed' || message.type === 'error') {
          reject(new Error(bytes.toString('utf8')));
        }
        return;
      }
      const arrivedNs = nowNs();
      const frame = decodeLiveFrame(bytes);
      if (!decodeAll && firstCreatedNs >= 0n) {
        ops += opsInBatches(frame.batches);
        return;
      }
      const before = decoder.trace.ops.count;
      decoder.apply(frame.batches);
      const columns = decoder.trace.ops.columns();
      ops += columns.count - before;
      const originNs = BigInt(decoder.trace.meta.originNs);
      if (firstCreatedNs < 0n && columns.count > 0) {
        firstCreatedNs = originNs + BigInt(columns.startNs[0]!);
      }
      for (let i = before; i < columns.count; i++) {
        latenciesMs.push(Number(arrivedNs - originNs - BigInt(columns.startNs[i]!)) / 1e6);
      }
    });
    socket.send(JSON.stringify({ type: 'subscribe', runId }));
  });
}

function connect(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

const base = `http://127.0.0.1:${options.port}`;
const sockets = await Promise.all(
  Array.from({ length: options.clients }, () => connect(`ws://127.0.0.1:${options.port}/api/live`)),
);
const response = await fetch(`${base}/api/runs`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ workload: options.workload, pace: 'fast', timeLimitMs: 600_000 }),
});
const { id } = (await response.json()) as { id: string };
const results = await Promise.all(
  sockets.map((socket) => watch(socket, id, options.mode === 'latency')),
);
sockets.forEach((socket) => socket.close());

const totalOps = results.reduce((sum, r) => sum + r.ops, 0);
const firstNs = results.reduce(
  (min, r) => (r.firstCreatedNs < min ? r.firstCreatedNs : min),
  results[0]!.firstCreatedNs,
);
const lastNs = results.reduce((max, r) => (r.endNs > max ? r.endNs : max), 0n);
const latencies = results.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
const quantile = (q: number): number =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
process.stdout.write(
  `${JSON.stringify({
    opsPerClient: results.map((r) => r.ops),
    recordsPerS: totalOps / (Number(lastNs - firstNs) / 1e9),
    p50Ms: quantile(0.5),
    p99Ms: quantile(0.99),
  })}\n`,
);
