import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { RunManager } from '../runs/run-manager.ts';
import type { TraceStore } from '../storage/trace-store.ts';
import { closeCollectorSocket, openCollectorSocket, socketAnswers } from './collector-socket.ts';
import type { ProfileHubOptions, ProfileRegistry } from './profile-hub.ts';
import { ProfileHub, defaultHubOptions } from './profile-hub.ts';
import type { LauncherHello, ProcessHello } from './profile-protocol.ts';
import { profileSocketName } from './profile-protocol.ts';
import type { ProfileTiming } from './profile-run.ts';
import { ProfileRun, defaultProfileTiming } from './profile-run.ts';

export interface ProfileServiceOptions {
  readonly runs: RunManager;
  readonly store: TraceStore;
  /** The dashboard's address of a run (with the token where one is required). */
  readonly dashboardUrl: (runId: string) => string;
  readonly log: (line: string) => void;
  readonly timing?: Partial<ProfileTiming>;
  readonly hub?: Partial<ProfileHubOptions>;
}

/** A program may run for days; the watchdog is not what ends a profile run. */
const profileTimeLimitMs = 7 * 24 * 3600 * 1000;
const reason = 'a profiled program (streamscope profile)';
const liveSuffix = ' — live';

/**
 * The server's side of `streamscope profile`: profiled processes and launchers connect on the
 * Unix socket in the data folder or on the port's /api/profile; each run is listed with the run
 * manager as a live run, so it streams to the dashboard and is stored like an executor run.
 */
export class ProfileService implements ProfileRegistry {
  private readonly hub: ProfileHub;
  private readonly live = new Map<string, ProfileRun>();
  private readonly timing: ProfileTiming;
  private unixServer: Server | undefined;
  private socketPath: string | undefined;

  constructor(private readonly options: ProfileServiceOptions) {
    this.timing = { ...defaultProfileTiming, ...options.timing };
    this.hub = new ProfileHub(this, { ...defaultHubOptions, ...options.hub });
  }

  /** The Unix socket collectors on this machine use, once listening. */
  get unixSocket(): string | undefined {
    return this.socketPath;
  }

  register(hello: LauncherHello): { run: ProfileRun; url: string } | string {
    const run = this.start(hello.title, BigInt(hello.originNs), true);
    return typeof run === 'string' ? run : { run, url: this.options.dashboardUrl(run.runId) };
  }

  runFor(hello: ProcessHello): ProfileRun | string {
    if (hello.runId === undefined) {
      // No launcher: a process started by hand with the collector makes its own run.
      const title = hello.title ?? `${hello.processName} (pid ${hello.pid})`;
      return this.start(title, BigInt(hello.originNs), false);
    }
    const run = this.live.get(hello.runId);
    if (run !== undefined) {
      return run;
    }
    const stored = this.options.store.get(hello.runId);
    return stored === undefined
      ? `no run '${hello.runId}' on this server`
      : `run '${hello.runId}' has ended (${stored.entry.status})`;
  }

  private start(title: string, originNs: bigint, hasLauncher: boolean): ProfileRun | string {
    const run = new ProfileRun(title, originNs, hasLauncher, this.timing);
    let id: string;
    try {
      id = this.options.runs.attach(
        { title: `${title}${liveSuffix}`, reason, timeLimitMs: profileTimeLimitMs },
        run,
      );
    } catch (error) {
      return (error as Error).message;
    }
    run.runId = id;
    this.live.set(id, run);
    void run.done.then(() => {
      this.live.delete(id);
      // Listed as "<title> — live" while it ran; the stored run carries its plain title.
      this.options.store.update(id, { title });
    });
    return run;
  }

  /** The token-checked TCP path: the server's upgrade handler hands /api/profile here. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.hub.handleUpgrade(request, socket, head);
  }

  /**
   * Listens on `profile.sock` in the data folder, readable by this user only. A socket file
   * another live server answers on is left alone (and reported); a stale one is replaced.
   */
  async listen(dataDir: string): Promise<string | undefined> {
    const socketPath = path.join(dataDir, profileSocketName);
    if (existsSync(socketPath)) {
      if (await socketAnswers(socketPath)) {
        this.options.log(
          `another server listens on ${socketPath}; profiled programs reach this one by --server URL only`,
        );
        return undefined;
      }
      await rm(socketPath, { force: true });
    }
    let server: Server;
    try {
      server = await openCollectorSocket(this.hub, socketPath);
    } catch (error) {
      // The dashboard serves without it; programs then reach this server by --server URL.
      this.options.log(`cannot listen on ${socketPath}: ${(error as Error).message}`);
      return undefined;
    }
    this.unixServer = server;
    this.socketPath = socketPath;
    return socketPath;
  }

  /**
   * Ends every profile run without its program (which runs on, its collector saying so once)
   * and closes the socket. Runs end with what arrived kept.
   */
  async close(): Promise<void> {
    for (const run of this.live.values()) {
      run.detach('the server stopped while the program ran; what arrived is kept');
    }
    await this.hub.close();
    const server = this.unixServer;
    if (server !== undefined) {
      await closeCollectorSocket(server);
      await rm(this.socketPath ?? '', { force: true });
    }
  }
}
