import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Report } from './report.ts';

// The live channel end to end: a real server (one process) streams clock runs to ws clients
// (another process) that apply every frame. Ops are stamped with the host's monotonic clock at
// creation, so latency is creation → arrival at a client, across processes.
//  - records_per_s: ops delivered to all clients together per second, from the first op's
//    creation to the last client's 'finished'; the producer appends as fast as it can.
//  - latency: one client, the producer paced at 20 ops per ms (20k ops/s) for about a second;
//    includes the server's 10 ms frame coalescing, encoding, the socket and decoding.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const serverScript = path.join(root, 'apps', 'server', 'scripts', 'live-bench-server.ts');
const clientScript = path.join(root, 'apps', 'server', 'scripts', 'live-bench-client.ts');

function tsx(script: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    stdio: 'pipe',
  });
}

async function firstLine(child: ChildProcessWithoutNullStreams, what: string): Promise<string> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${stderr}`))),
  );
  const line = new Promise<string>((resolve) => lines.once('line', resolve));
  return Promise.race([line, exited]);
}

interface ClientFigures {
  readonly recordsPerS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly opsPerClient: readonly number[];
}

async function measure(
  port: number,
  clients: number,
  mode: 'throughput' | 'latency',
  workload: object,
): Promise<ClientFigures> {
  const child = tsx(clientScript, [JSON.stringify({ port, clients, mode, workload })]);
  return JSON.parse(await firstLine(child, 'live bench client')) as ClientFigures;
}

export async function run(report: Report): Promise<void> {
  const server = tsx(serverScript, []);
  try {
    const { port } = JSON.parse(await firstLine(server, 'live bench server')) as { port: number };
    const fast = (ops: number) => ({
      name: 'fast',
      ops,
      opsPerTick: 5000,
      tickMs: 0,
      startDelayMs: 300,
    });
    await measure(port, 1, 'throughput', fast(200_000)); // warm-up
    const one = await measure(port, 1, 'throughput', fast(2_000_000));
    report('live.records_per_s_1_client', Math.round(one.recordsPerS), 'records/s');
    const twenty = await measure(port, 20, 'throughput', fast(500_000));
    if (twenty.opsPerClient.some((n) => n !== 500_000)) {
      throw new Error(`a client missed records: ${twenty.opsPerClient.join(', ')}`);
    }
    report('live.records_per_s_20_clients', Math.round(twenty.recordsPerS), 'records/s');
    const paced = await measure(port, 1, 'latency', {
      name: 'paced',
      ops: 20_000,
      opsPerTick: 20,
      tickMs: 1,
      startDelayMs: 300,
    });
    report('live.latency_p50_ms', paced.p50Ms, 'ms');
    report('live.latency_p99_ms', paced.p99Ms, 'ms');
  } finally {
    server.stdin.end();
  }
}
