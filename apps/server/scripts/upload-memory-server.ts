import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { importForeign } from '../src/integrations/importers.ts';
import { startServer } from '../src/server.ts';
import { clockBackends } from './clock-backend.ts';

// The server half of `pnpm bench upload-memory` and `pnpm bench live-stored-memory`: a real
// server with the importers. Prints {"port": N} when listening, then answers each `memory` line
// on stdin with its peak and current resident set ({"peakBytes", "rssBytes"}, from
// /proc/self/status VmHWM and VmRSS) and its live channel's stats ("live"); stops when stdin
// closes.
const dataDir = await mkdtemp(path.join(tmpdir(), 'streamscope-upload-bench-'));
const server = await startServer({
  dataDir,
  port: 0,
  backendSet: clockBackends(),
  importForeign,
  limits: { uploadBytes: 1 << 30 },
  log: (line) => process.stderr.write(`${line}\n`),
});

function statusKb(field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(
    readFileSync('/proc/self/status', 'utf8'),
  );
  if (match === null) {
    throw new Error(`/proc/self/status has no ${field} line`);
  }
  return Number(match[1]);
}

process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line === 'memory') {
    const memory = {
      peakBytes: statusKb('VmHWM') * 1024,
      rssBytes: statusKb('VmRSS') * 1024,
      live: server.liveStats(),
    };
    process.stdout.write(`${JSON.stringify(memory)}\n`);
  }
});
lines.on('close', () => {
  void server.close().then(() => rm(dataDir, { recursive: true, force: true }));
});
