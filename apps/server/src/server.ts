import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { BackendChoice, BackendName } from '@streamscope/executor';
import type { Trace } from '@streamscope/trace';
import serverPackage from '../package.json' with { type: 'json' };
import type { ServerLimits, ServerTiming } from './config.ts';
import { defaultHost, defaultLimits, defaultTiming } from './config.ts';
import { createApp } from './http/app.ts';
import { authorizeUpgrade, securityPolicyFor } from './http/security.ts';
import { defaultWebDistDir } from './http/static-web.ts';
import type { TraceTools, WorkloadService } from './http/services.ts';
import type { ContainerReader, ForeignImporter } from './imports/import-service.ts';
import { ImportService } from './imports/import-service.ts';
import type { LiveStats } from './live/live-server.ts';
import { LiveServer } from './live/live-server.ts';
import { openRunLog } from './live/open-run-log.ts';
import type { ProfileTiming } from './profile/profile-run.ts';
import { profilePath } from './profile/profile-protocol.ts';
import { ProfileService } from './profile/profile-service.ts';
import type { BackendSet } from './runs/run-manager.ts';
import { RunManager } from './runs/run-manager.ts';
import { TraceStore } from './storage/trace-store.ts';
import { sharedWorkers } from './workers/server-workers.ts';

export interface StartOptions {
  readonly dataDir: string;
  readonly backendSet: BackendSet;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly backend?: BackendChoice;
  /** Required beyond loopback; generated when absent. On loopback, set only to demand one. */
  readonly token?: string;
  readonly webDistDir?: string;
  /** sql.js's WebAssembly file, for a bundled server; the sql.js package's own by default. */
  readonly sqlWasmPath?: string;
  readonly limits?: Partial<ServerLimits>;
  readonly timing?: Partial<ServerTiming>;
  readonly workloads?: WorkloadService;
  readonly tools?: TraceTools;
  readonly importForeign?: ForeignImporter;
  /** Checks uploaded .sstrace containers: in a worker thread of the shared pool by default. */
  readonly readContainer?: ContainerReader;
  readonly summarize?: (trace: Trace) => unknown;
  readonly log?: (line: string) => void;
  /** Profiled programs' runs: how long their processes may be away or finishing (tests shorten). */
  readonly profileTiming?: Partial<ProfileTiming>;
}

export interface RunningServer {
  /** The base URL, with `?token=` when a token is required. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly token?: string;
  readonly autoBackend: { readonly name: BackendName; readonly reason: string };
  /** What startup recovery repaired in the data directory. */
  readonly notes: readonly string[];
  readonly store: TraceStore;
  readonly runs: RunManager;
  /** Where profiled programs connect on this machine (undefined if another server holds it). */
  readonly profileSocket?: string;
  liveStats(): LiveStats;
  /** Cancels runs (their partial traces are stored), closes sockets and the database. */
  close(): Promise<void>;
}

/** The upload route (import-routes.ts), which answers `Expect: 100-continue` itself. */
const uploadPath = '/api/imports';

/** Opens the data directory, starts Express and the live channel, and listens. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const log = options.log ?? (() => undefined);
  const host = options.host ?? defaultHost;
  const limits: ServerLimits = { ...defaultLimits, ...options.limits };
  const timing: ServerTiming = { ...defaultTiming, ...options.timing };
  const policy = securityPolicyFor(host, options.token);
  const token = policy.token;

  const { store, notes } = await TraceStore.open(options.dataDir, options.sqlWasmPath);
  const auto = await options.backendSet.resolveAuto();
  const autoBackend = { name: auto.backend.name, reason: auto.reason };
  const runs = new RunManager({
    store,
    backendSet: options.backendSet,
    concurrentRuns: limits.concurrentRuns,
    minFrameIntervalMs: timing.minFrameIntervalMs,
    progressIntervalMs: timing.progressIntervalMs,
    watchdogGraceMs: timing.watchdogGraceMs,
    log,
    ...(options.tools?.buildTiles !== undefined ? { buildTiles: options.tools.buildTiles } : {}),
    // The shared pool is made on the first replay, not with the server.
    replaySource: options.tools?.replaySource ?? ((trace) => sharedWorkers().replaySource(trace)),
    ...(options.summarize !== undefined ? { summarize: options.summarize } : {}),
  });
  const imports = new ImportService(
    store,
    limits.uploadBytes,
    limits.importOps,
    // The shared pool is made on the first container upload, not with the server.
    options.readContainer ?? ((filePath, how) => sharedWorkers().readContainer(filePath, how)),
    options.importForeign,
    log,
  );
  const app = createApp({
    store,
    runs,
    backendSet: options.backendSet,
    imports,
    tools: options.tools ?? {},
    limits,
    policy,
    defaultBackend: options.backend ?? 'auto',
    autoBackend,
    version: serverPackage.version,
    webDistDir: options.webDistDir ?? defaultWebDistDir,
    log,
    ...(options.workloads !== undefined ? { workloads: options.workloads } : {}),
  });
  const live = new LiveServer({
    openLog: (runId) => openRunLog(runId, runs, store),
    authorize: (request) => authorizeUpgrade(policy, request),
    highWaterBytes: limits.liveHighWaterBytes,
    maxSubscriptionsPerSocket: limits.maxSubscriptionsPerSocket,
    maxMessageBytes: limits.liveMessageBytes,
    heartbeatMs: timing.heartbeatMs,
  });
  let baseUrl = '';
  const profile = new ProfileService({
    runs,
    store,
    dashboardUrl: (id) => `${baseUrl}#/trace/${id}`,
    log,
    ...(options.profileTiming !== undefined ? { timing: options.profileTiming } : {}),
  });
  const server = createServer(app);
  // A client that asks `Expect: 100-continue` is told to send its body by the route that reads
  // it: an upload over the limit is refused by its Content-Length and never sent. Every other
  // request is told at once, as Node would.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    if (!(request.method === 'PUT' && pathname === uploadPath)) {
      response.writeContinue();
    }
    app(request, response);
  });
  server.on('upgrade', (request, socket, head) => {
    // Profiled programs beyond this machine's socket: the same checks as the live channel.
    if (new URL(request.url ?? '/', 'http://localhost').pathname === profilePath) {
      const problem = authorizeUpgrade(policy, request);
      if (problem !== undefined) {
        const text = problem.status === 401 ? 'Unauthorized' : 'Forbidden';
        socket.end(`HTTP/1.1 ${problem.status} ${text}\r\nConnection: close\r\n\r\n`);
        return;
      }
      profile.handleUpgrade(request, socket, head);
      return;
    }
    live.handleUpgrade(request, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}/${token === undefined ? '' : `?token=${token}`}`;
  baseUrl = url;
  const profileSocket = await profile.listen(options.dataDir);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await profile.close();
      await runs.shutdown();
      await live.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.close();
    })();
    return closing;
  };
  return {
    url,
    host,
    port,
    autoBackend,
    notes,
    store,
    runs,
    ...(profileSocket !== undefined ? { profileSocket } : {}),
    liveStats: () => live.stats(),
    close,
    ...(token !== undefined ? { token } : {}),
  };
}
