import { spawn } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { kernelRunTrace, saveTrace } from '@streamscope/trace';
import type { Report } from './report.ts';

// Server memory while 40 clients subscribe to a stored run (an imported 1.2M-op trace, about
// 11 MB) and never read a byte, and after they go away: resident set of the server process and
// what its live channel says it holds for them (socket buffers and frames being read).
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const serverScript = path.join(root, 'apps', 'server', 'scripts', 'upload-memory-server.ts');
const clientScript = path.join(root, 'apps', 'server', 'scripts', 'idle-live-clients.ts');
const clients = 40;
const mib = 2 ** 20;

interface Memory {
  readonly rssBytes: number;
  readonly live: {
    readonly clients: number;
    readonly throttled: number;
    readonly heldBytes: number;
    readonly openFiles: number;
  };
}

/** A tsx child whose stdout lines are answers, in order. */
function child(script: string, args: readonly string[]) {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout });
  const pending: ((line: string) => void)[] = [];
  lines.on('line', (line) => pending.shift()?.(line));
  return {
    next: (): Promise<string> => new Promise((resolve) => pending.push(resolve)),
    ask(line: string): Promise<string> {
      const answer = this.next();
      proc.stdin.write(`${line}\n`);
      return answer;
    },
    async stop(): Promise<void> {
      proc.stdin.end();
      if (proc.exitCode === null) {
        await new Promise((resolve) => proc.once('exit', resolve));
      }
    },
  };
}

export async function run(report: Report): Promise<void> {
  const server = child(serverScript, []);
  let idle: ReturnType<typeof child> | undefined;
  try {
    const { port } = JSON.parse(await server.next()) as { port: number };
    const memory = async (): Promise<Memory> => JSON.parse(await server.ask('memory')) as Memory;
    /** Asks until `done` holds, every 50 ms. */
    const until = async (done: (m: Memory) => boolean): Promise<Memory> => {
      for (;;) {
        const m = await memory();
        if (done(m)) {
          return m;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const file = saveTrace(kernelRunTrace(1_200_000));
    const response = await fetch(`http://127.0.0.1:${port}/api/imports?filename=stored.sstrace`, {
      method: 'PUT',
      body: file,
    });
    const { id } = (await response.json()) as { id: string };
    const before = await memory();
    idle = child(clientScript, [JSON.stringify({ port, runId: id, clients })]);
    await idle.next();
    const held = await until((m) => m.live.throttled === clients);
    await idle.ask('close');
    const gone = await until((m) => m.live.clients === 0);
    report('live_stored_file', file.length / mib, 'MiB');
    report('live_stored_rss_before', before.rssBytes / mib, 'MiB');
    report(`live_stored_${clients}_idle_subscribers_rss`, held.rssBytes / mib, 'MiB');
    report(`live_stored_${clients}_idle_subscribers_held`, held.live.heldBytes / mib, 'MiB');
    report('live_stored_held_per_subscriber', held.live.heldBytes / clients / 1024, 'KiB');
    report('live_stored_after_close_rss', gone.rssBytes / mib, 'MiB');
    report('live_stored_after_close_held', gone.live.heldBytes, 'bytes');
  } finally {
    await idle?.stop();
    await server.stop();
  }
}
