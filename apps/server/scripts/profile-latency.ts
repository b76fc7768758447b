// Live delivery of a profiled program: how long after a kernel ends on the GPU its record is in
// a live-channel client's decoded trace (what the dashboard's store holds).
//   node profile-latency.mjs http://127.0.0.1:PORT [TITLE_SUFFIX]   (bundled for the GPU machine)
// Waits for the first running run whose title ends with TITLE_SUFFIX (default " — live"), follows
// it to its end and prints one JSON line: kernels seen and the delivery latency p50/p90/p99/max
// in ms. Kernel ends are CUPTI times placed on CLOCK_REALTIME by the collector (the run's origin
// is the CLI's spawn instant), so the figure includes the collector's flush period, the socket,
// the server's merge and frame coalescing, and the live channel.
import process from 'node:process';
import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import { OpKind, TraceDecoder } from '@streamscope/trace';
import { decodeLiveFrame } from '../src/live/protocol.ts';

interface Entry {
  readonly id: string;
  readonly title: string;
  readonly status: string;
}

const base = process.argv[2] ?? 'http://127.0.0.1:5178';
const suffix = process.argv[3] ?? ' — live';

function nowRealtimeNs(): number {
  return (performance.timeOrigin + performance.now()) * 1e6;
}

async function findRun(): Promise<string> {
  for (;;) {
    const entries = (await (await fetch(`${base}/api/traces`)).json()) as Entry[];
    const live = entries.find((e) => e.status === 'running' && e.title.endsWith(suffix));
    if (live !== undefined) {
      return live.id;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

const runId = await findRun();
const decoder = new TraceDecoder();
const latenciesMs: number[] = [];
const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/api/live`);
socket.on('open', () => socket.send(JSON.stringify({ type: 'subscribe', runId })));
socket.on('message', (data: RawData, isBinary: boolean) => {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
  if (!isBinary) {
    const message = JSON.parse(bytes.toString('utf8')) as { type: string };
    if (message.type === 'finished' || message.type === 'failed' || message.type === 'cancelled') {
      const sorted = [...latenciesMs].sort((a, b) => a - b);
      process.stdout.write(
        `${JSON.stringify({
          runId,
          end: message.type,
          kernels: sorted.length,
          p50Ms: percentile(sorted, 0.5),
          p90Ms: percentile(sorted, 0.9),
          p99Ms: percentile(sorted, 0.99),
          maxMs: sorted.at(-1) ?? Number.NaN,
        })}\n`,
      );
      socket.close();
    }
    return;
  }
  const arrivedNs = nowRealtimeNs();
  const before = decoder.trace.ops.count;
  decoder.apply(decodeLiveFrame(bytes).batches);
  const origin = Number(decoder.trace.meta.originNs);
  const ops = decoder.trace.ops.columns();
  for (let i = before; i < ops.count; i++) {
    if (ops.kind[i] === OpKind.Kernel) {
      latenciesMs.push((arrivedNs - (origin + ops.endNs[i]!)) / 1e6);
    }
  }
});
