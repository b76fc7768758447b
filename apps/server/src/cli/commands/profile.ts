import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { constants } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { formatDurationNs } from '@streamscope/trace';
import { writeTraceFileAtomic } from '../../storage/atomic-file.ts';
import { readEnv } from '../../env.ts';
import { defaultCollectorPath } from '../../profile/collector-paths.ts';
import { socketAnswers } from '../../profile/collector-socket.ts';
import type { CollectorTarget } from '../../profile/launcher-client.ts';
import { LauncherClient } from '../../profile/launcher-client.ts';
import { LocalCollector, localRunId } from '../../profile/local-collector.ts';
import type { ProfileEnded } from '../../profile/profile-protocol.ts';
import { profileSocketName } from '../../profile/profile-protocol.ts';
import type { Command, CommandIo } from '../command.ts';
import { UsageError } from '../command.ts';
import { oneValue, parseFlags } from '../parse-flags.ts';

const usage = `usage: pnpm streamscope profile [--server URL] [--data DIR] [--out FILE] [--name TITLE] [--no-nvtx] -- CMD [ARGS...]

  Runs CMD with the injection collector (CUDA_INJECTION64_PATH) in every process that uses CUDA,
  and streams their GPU work (kernels, copies, memsets, syncs, events, API calls, NVTX ranges) to
  the dashboard as one live run. Prints the run's dashboard URL at once; exits with CMD's status.

  --server URL   a streamscope server: http://HOST:PORT (add ?token=... beyond loopback, or set
                 STREAMSCOPE_TOKEN)
  --data DIR     without --server: the local server whose data folder is DIR (default ./data);
                 its socket DIR/${profileSocketName} is used
  --out FILE     also write the trace as a .sstrace file; with no server running, only that
  --name TITLE   the run's title (default: CMD up to its first option, e.g. "python train.py")
  --no-nvtx      leave NVTX ranges out`;

/** Splits `[flags] -- CMD ARGS` (or `[flags] CMD ARGS`): the command is taken verbatim. */
function splitArgs(args: readonly string[]): { flags: string[]; command: string[] } {
  const valueFlags = new Set(['--server', '--data', '--out', '--name']);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      return { flags: args.slice(0, i), command: args.slice(i + 1) };
    }
    if (!arg.startsWith('--')) {
      return { flags: args.slice(0, i), command: args.slice(i) };
    }
    if (valueFlags.has(arg)) {
      i++;
    }
  }
  return { flags: [...args], command: [] };
}

/** "python train.py": the command up to its first option, which may carry a secret. */
export function defaultTitle(command: readonly string[]): string {
  const words = [path.basename(command[0]!)];
  for (const arg of command.slice(1)) {
    if (arg.startsWith('-') || words.join(' ').length > 80) {
      break;
    }
    words.push(arg);
  }
  return words.join(' ').slice(0, 200);
}

function collectorMissing(collector: string): string {
  const status = path.join(path.dirname(collector), 'status.json');
  let why = 'run `pnpm install` where nvcc is on PATH';
  if (existsSync(status)) {
    const parsed = JSON.parse(readFileSync(status, 'utf8')) as { reason?: string };
    if (parsed.reason !== undefined && parsed.reason !== '') {
      why = parsed.reason;
    }
  }
  return `the injection collector ${collector} is not built: ${why}`;
}

/** The server's collector endpoint from --server, or the local server's socket, or none. */
async function findTarget(
  server: string | undefined,
  dataDir: string,
): Promise<CollectorTarget | undefined> {
  if (server !== undefined) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new UsageError(`--server must be a URL like http://127.0.0.1:5178, got '${server}'`);
    }
    if (url.protocol !== 'http:') {
      throw new UsageError(`--server must be an http:// URL, got '${server}'`);
    }
    const token = url.searchParams.get('token') ?? readEnv().token;
    return { kind: 'url', origin: url.origin, ...(token !== undefined ? { token } : {}) };
  }
  const socket = path.resolve(dataDir, profileSocketName);
  return existsSync(socket) && (await socketAnswers(socket))
    ? { kind: 'socket', path: socket }
    : undefined;
}

function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) {
    return code;
  }
  return 128 + (signal !== null ? (constants.signals[signal] ?? 0) : 0);
}

function report(io: CommandIo, ended: ProfileEnded | string, url: string | undefined): void {
  if (typeof ended === 'string') {
    io.err(`streamscope profile: ${ended}`);
    return;
  }
  for (const warning of ended.warnings) {
    io.err(`streamscope profile: warning: ${warning}`);
  }
  const where = url !== undefined ? ` (${url})` : '';
  if (ended.status === 'failed') {
    io.err(`streamscope profile: ${ended.reason ?? 'the run failed'}${where}`);
  } else if (ended.status === 'cancelled') {
    io.err(`streamscope profile: stopped from the dashboard; ${ended.opCount} ops kept${where}`);
  } else {
    const processes = `${ended.processes} process${ended.processes === 1 ? '' : 'es'}`;
    io.err(`streamscope profile: recorded ${ended.opCount} ops from ${processes}${where}`);
  }
}

/** `streamscope profile -- CMD`: watch a real program's streams live. */
export const profileCommand: Command = {
  name: 'profile',
  summary: 'Run a program with the CUDA collector and watch its streams live',
  usage,
  async run(args, io) {
    const split = splitArgs(args);
    const flags = parseFlags(split.flags, {
      values: ['server', 'data', 'out', 'name'],
      switches: ['no-nvtx'],
    });
    if (flags.positional.length > 0 || split.command.length === 0) {
      throw new UsageError('give the command to profile after --');
    }
    const command = split.command;
    const env = readEnv();
    const collector = path.resolve(env.collectorPath ?? defaultCollectorPath);
    if (!existsSync(collector)) {
      io.err(`streamscope profile: ${collectorMissing(collector)}`);
      return 1;
    }
    const out = oneValue(flags, 'out');
    const title = oneValue(flags, 'name') ?? defaultTitle(command);
    const nvtx = !flags.switches.has('no-nvtx');
    const target = await findTarget(oneValue(flags, 'server'), oneValue(flags, 'data') ?? 'data');
    if (target === undefined && out === undefined) {
      io.err(
        'streamscope profile: no streamscope server is running here (no data/profile.sock answers): ' +
          'start `pnpm streamscope serve`, name one with --server URL or --data DIR, or write a file with --out FILE',
      );
      return 1;
    }
    const originNs = BigInt(Date.now()) * 1_000_000n;
    let launcher: LauncherClient | undefined;
    let local: LocalCollector | undefined;
    const collectorEnv: Record<string, string> = {
      CUDA_INJECTION64_PATH: collector,
      STREAMSCOPE_PROFILE_ORIGIN_NS: originNs.toString(),
      STREAMSCOPE_PROFILE_NVTX: nvtx ? '1' : '0',
      STREAMSCOPE_PROFILE_TITLE: title,
    };
    if (nvtx) {
      collectorEnv['NVTX_INJECTION64_PATH'] = collector;
    }
    if (target !== undefined) {
      try {
        launcher = await LauncherClient.open(target, title, originNs);
      } catch (error) {
        io.err(`streamscope profile: cannot register the run: ${(error as Error).message}`);
        return 1;
      }
      collectorEnv['STREAMSCOPE_PROFILE_RUN'] = launcher.runId;
      if (target.kind === 'socket') {
        collectorEnv['STREAMSCOPE_PROFILE_SOCKET'] = target.path;
      } else {
        collectorEnv['STREAMSCOPE_PROFILE_URL'] = target.origin;
        if (target.token !== undefined) {
          collectorEnv['STREAMSCOPE_PROFILE_TOKEN'] = target.token;
        }
      }
      io.err(`streamscope profile: ${title} — live at ${launcher.url ?? `run ${launcher.runId}`}`);
    } else {
      local = await LocalCollector.open(title, originNs);
      collectorEnv['STREAMSCOPE_PROFILE_RUN'] = localRunId;
      collectorEnv['STREAMSCOPE_PROFILE_SOCKET'] = local.socketPath;
      io.err(`streamscope profile: no server; recording ${title} to ${out ?? ''}`);
    }
    if (process.env['CUDA_INJECTION64_PATH'] !== undefined) {
      io.err(
        'streamscope profile: warning: CUDA_INJECTION64_PATH was set; the collector replaces it',
      );
    }

    const child = spawn(command[0]!, command.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, ...collectorEnv },
    });
    launcher?.onStop(() => child.kill('SIGINT'));
    // A terminal's Ctrl-C reaches the program by itself (same process group); other signals sent
    // to this command are handed on, and this command waits for the program either way.
    const forward = (signal: NodeJS.Signals): void => {
      if (signal !== 'SIGINT' || process.stdin.isTTY !== true) {
        child.kill(signal);
      }
    };
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.on(signal, forward);
    }
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve) => {
        child.once('error', (error) => {
          io.err(`streamscope profile: cannot start ${command[0]}: ${error.message}`);
          resolve({ code: 127, signal: null });
        });
        child.once('exit', (code, signal) => resolve({ code, signal }));
      },
    );
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.off(signal, forward);
    }

    if (launcher !== undefined) {
      launcher.exited(exit.code, exit.signal);
      const ended = await launcher.ended(30_000);
      launcher.close();
      report(io, ended, launcher.url);
      if (
        out !== undefined &&
        typeof ended !== 'string' &&
        ended.opCount > 0 &&
        launcher.url !== undefined
      ) {
        await download(launcher.url, launcher.runId, out, target, io);
      }
    } else if (local !== undefined) {
      local.run.launcherExited({ type: 'exit', code: exit.code, signal: exit.signal });
      const end = await local.run.done;
      await local.close();
      const trace = local.run.trace;
      report(
        io,
        {
          type: 'ended',
          runId: localRunId,
          status: end.status,
          ...(end.status === 'failed' ? { reason: end.reason } : {}),
          opCount: trace.ops.count,
          processes: trace.processes.length,
          warnings: trace.meta.warnings ?? [],
        },
        undefined,
      );
      if (out !== undefined && trace.ops.count > 0) {
        writeTraceFileAtomic(trace, out);
        io.err(
          `streamscope profile: wrote ${out} (${trace.ops.count} ops over ${formatDurationNs(trace.spanNs())})`,
        );
      }
    }
    return exitStatus(exit.code, exit.signal);
  },
};

async function download(
  url: string,
  runId: string,
  out: string,
  target: CollectorTarget | undefined,
  io: CommandIo,
): Promise<void> {
  const base = new URL(url);
  const token =
    base.searchParams.get('token') ?? (target?.kind === 'url' ? target.token : undefined);
  const response = await fetch(`${base.origin}/api/traces/${runId}/data`, {
    headers: token !== undefined ? { authorization: `Bearer ${token}` } : {},
  });
  if (!response.ok) {
    io.err(`streamscope profile: could not fetch the trace for --out: HTTP ${response.status}`);
    return;
  }
  await writeFile(out, new Uint8Array(await response.arrayBuffer()));
  io.err(`streamscope profile: wrote ${out}`);
}
