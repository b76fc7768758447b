import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeCollectorSocket, openCollectorSocket } from './collector-socket.ts';
import { ProfileHub } from './profile-hub.ts';
import { profileSocketName } from './profile-protocol.ts';
import type { ProfileTiming } from './profile-run.ts';
import { ProfileRun, defaultProfileTiming } from './profile-run.ts';

/** The run id processes name when the CLI collects without a server. */
export const localRunId = 'local';

/**
 * `profile --out FILE` with no server: the CLI itself takes the program's processes on a Unix
 * socket in a private temporary folder and merges them into one run, written to FILE at the end.
 */
export class LocalCollector {
  private constructor(
    readonly run: ProfileRun,
    readonly socketPath: string,
    private readonly dir: string,
    private readonly hub: ProfileHub,
    private readonly server: Server,
  ) {}

  static async open(
    title: string,
    originNs: bigint,
    timing: ProfileTiming = defaultProfileTiming,
  ): Promise<LocalCollector> {
    const run = new ProfileRun(title, originNs, true, timing);
    run.runId = localRunId;
    // mkdtemp makes the folder 0700: only this user reaches the socket inside.
    const dir = await mkdtemp(path.join(tmpdir(), 'streamscope-profile-'));
    const hub = new ProfileHub({
      register: () => 'this collector takes the processes of one program only',
      runFor: (hello) =>
        hello.runId === localRunId ? run : `this collector records run '${localRunId}' only`,
    });
    const socketPath = path.join(dir, profileSocketName);
    const server = await openCollectorSocket(hub, socketPath);
    return new LocalCollector(run, socketPath, dir, hub, server);
  }

  async close(): Promise<void> {
    await this.hub.close();
    await closeCollectorSocket(this.server);
    await rm(this.dir, { recursive: true, force: true });
  }
}
