import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { startServer } from '../src/server.ts';
import { clockBackends, isClockWorkload } from './clock-backend.ts';

// The server half of `pnpm bench live`: a real server whose runs are clock runs. Prints
// {"port": N} when listening; stops when stdin closes.
const dataDir = await mkdtemp(path.join(tmpdir(), 'streamscope-live-bench-'));
const server = await startServer({
  dataDir,
  port: 0,
  backendSet: clockBackends(),
  limits: { maxQueuedRuns: 1000 },
  workloads: {
    validate: (json) =>
      isClockWorkload(json)
        ? { ok: true }
        : { ok: false, errors: [{ path: '$', message: 'not a clock workload' }] },
    presets: () => [],
    build: () => {
      throw new Error('no presets');
    },
  },
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void server.close().then(() => rm(dataDir, { recursive: true, force: true }));
});
