import { spawn } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import type { BackendChoice } from '@streamscope/executor';
import { importPeakBytesPerOp } from '@streamscope/importers';
import { defaultNsysTimeoutMs, nsysPathProblem } from '@streamscope/importers/node';
import { defaultHost, defaultLimits, defaultPort } from '../../config.ts';
import { readEnv } from '../../env.ts';
import { executorBackendsFor } from '../../integrations/backends.ts';
import { foreignImporter } from '../../integrations/importers.ts';
import { summarize, traceTools } from '../../integrations/trace-tools.ts';
import { workloadService } from '../../integrations/workload-service.ts';
import { startServer } from '../../server.ts';
import { sharedWorkers } from '../../workers/server-workers.ts';
import { bundleThreads } from '../../workers/thread-bundle.ts';
import type { Command, CommandIo } from '../command.ts';
import { UsageError } from '../command.ts';
import { intValue, oneValue, parseFlags } from '../parse-flags.ts';

const usage = `usage: pnpm streamscope serve [--port N] [--host ADDR] [--data DIR] [--backend auto|cuda|sim] [--open]
                               [--max-upload-mb N] [--max-ops N] [--max-run-s N] [--concurrent-runs N]
                               [--nsys PATH] [--nsys-timeout-s N]

  --port N             port to listen on (default ${defaultPort}; 0 picks a free one)
  --host ADDR          address to bind (default ${defaultHost}); beyond loopback a token is required
                       and printed in the URL (set STREAMSCOPE_TOKEN to fix it)
  --data DIR           data directory: metadata database and trace files (default ./data)
  --backend NAME       default backend for runs that do not name one (default auto: cuda when a
                       GPU is usable, else the simulator)
  --open               open the dashboard in the default browser
  --max-upload-mb N    largest upload in MiB (default: none; an import streams, its memory follows
                       the ops it keeps)
  --max-ops N          most ops and ranges one import keeps (default ${defaultLimits.importOps}: 60% of this
                       machine's memory at ${importPeakBytesPerOp} bytes an op); a SQLite export over it is
                       refused before its rows are read
  --max-run-s N        longest run a request may ask for (default ${defaultLimits.maxRunMs / 1000})
  --concurrent-runs N  simulator and replay runs at once (default ${defaultLimits.concurrentRuns})
  --nsys PATH          the nsys that exports uploaded .nsys-rep/.qdrep reports to SQLite (default:
                       NSYS, else nsys on PATH, else the newest that Nsight Systems, a CUDA toolkit
                       or Nsight Compute installed under /opt/nvidia or /usr/local/cuda*)
  --nsys-timeout-s N   longest one report's export may run, in seconds (default ${defaultNsysTimeoutMs / 1000})`;

const backendChoices: readonly BackendChoice[] = ['auto', 'cuda', 'sim'];

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Start the dashboard server (Express + ws) on 127.0.0.1',
  usage,
  async run(args, io) {
    const flags = parseFlags(args, {
      values: [
        'port',
        'host',
        'data',
        'backend',
        'max-upload-mb',
        'max-ops',
        'max-run-s',
        'concurrent-runs',
        'nsys',
        'nsys-timeout-s',
      ],
      switches: ['open'],
    });
    if (flags.positional.length > 0) {
      throw new UsageError(`unexpected argument '${flags.positional[0]}'`);
    }
    const backend = oneValue(flags, 'backend') ?? 'auto';
    if (!backendChoices.includes(backend as BackendChoice)) {
      throw new UsageError(
        `--backend must be one of ${backendChoices.join(', ')}, got '${backend}'`,
      );
    }
    const port = intValue(flags, 'port', 0, 65535) ?? defaultPort;
    const uploadMb = intValue(flags, 'max-upload-mb', 1, 1 << 30);
    const importOps = intValue(flags, 'max-ops', 1, Number.MAX_SAFE_INTEGER);
    const maxRunS = intValue(flags, 'max-run-s', 1, 24 * 3600);
    const concurrentRuns = intValue(flags, 'concurrent-runs', 1, 64);
    const nsysTimeoutS = intValue(flags, 'nsys-timeout-s', 1, 7 * 24 * 3600);
    const env = readEnv();
    const nsysPath = oneValue(flags, 'nsys');
    // A wrong --nsys is said now, not at the first report uploaded.
    const nsysProblem =
      nsysPath === undefined ? undefined : await nsysPathProblem(nsysPath, env.searchPath);
    if (nsysPath !== undefined && nsysProblem !== undefined) {
      throw new UsageError(`--nsys ${nsysPath}: ${nsysProblem}`);
    }
    const dataDir = path.resolve(oneValue(flags, 'data') ?? 'data');
    // The worker threads run one bundle of their code (thread-bundle.ts), before anything
    // starts the shared pool.
    const threads = await bundleThreads().catch((error: unknown) => {
      io.err(
        `note: the worker threads run from the sources (bundling them failed: ${error instanceof Error ? error.message : String(error)})`,
      );
      return undefined;
    });
    sharedWorkers(threads === undefined ? {} : { script: threads });
    const backendSet = await executorBackendsFor(dataDir, (line) => io.err(line));
    const server = await startServer({
      dataDir,
      port,
      host: oneValue(flags, 'host') ?? defaultHost,
      backend: backend as BackendChoice,
      backendSet,
      // Workload expansion, import parsing, analysis and export run in worker threads.
      workloads: workloadService(sharedWorkers()),
      tools: traceTools(sharedWorkers()),
      importForeign: foreignImporter({
        env,
        ...(nsysPath === undefined ? {} : { optionPath: nsysPath }),
        ...(nsysTimeoutS === undefined ? {} : { timeoutMs: nsysTimeoutS * 1000 }),
      }),
      summarize,
      log: (line) => io.err(line),
      limits: {
        ...(uploadMb !== undefined ? { uploadBytes: uploadMb * 2 ** 20 } : {}),
        ...(importOps !== undefined ? { importOps } : {}),
        ...(maxRunS !== undefined
          ? {
              maxRunMs: maxRunS * 1000,
              defaultRunMs: Math.min(defaultLimits.defaultRunMs, maxRunS * 1000),
            }
          : {}),
        ...(concurrentRuns !== undefined ? { concurrentRuns } : {}),
      },
      ...(env.token !== undefined ? { token: env.token } : {}),
      ...(env.webDistDir !== undefined ? { webDistDir: path.resolve(env.webDistDir) } : {}),
    });
    for (const note of server.notes) {
      io.out(`recovered: ${note}`);
    }
    const auto = server.autoBackend;
    const runsOn = backend === 'auto' ? auto.name : backend;
    io.out(`streamscope serving ${server.url}`);
    io.out(`data: ${dataDir}`);
    io.out(
      runsOn === 'sim'
        ? `backend: simulator (${backend === 'auto' ? auto.reason : 'chosen with --backend sim'})`
        : `backend: ${runsOn} (${backend === 'auto' ? auto.reason : `chosen with --backend ${backend}`})`,
    );
    if (backend !== 'auto') {
      const status = await backendSet.backends[backend as 'cuda' | 'sim'].status();
      if (!status.available) {
        io.err(
          `warning: ${backend} is not available here (${status.reason ?? 'no reason given'}); runs that use it will be refused`,
        );
      }
    }
    if (server.token !== undefined) {
      io.out('access beyond loopback needs the token in the URL above; keep it private');
    }
    if (flags.switches.has('open')) {
      openBrowser(server.url, io);
    }
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        io.out('stopping: cancelling runs and storing their traces');
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await server.close();
    return 0;
  },
};

function openBrowser(url: string, io: CommandIo): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
  child.on('error', () => io.err(`could not open a browser (${command}); open ${url} yourself`));
  child.unref();
}
