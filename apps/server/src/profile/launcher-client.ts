import type { RawData } from 'ws';
import { WebSocket } from 'ws';
import type { ProfileEnded, ProfileServerMessage } from './profile-protocol.ts';
import { profilePath, profileProtocol } from './profile-protocol.ts';

/** Where a server takes collectors: its Unix socket, or its port (with the token beyond loopback). */
export type CollectorTarget =
  | { readonly kind: 'socket'; readonly path: string }
  | { readonly kind: 'url'; readonly origin: string; readonly token?: string };

/**
 * The `profile` CLI's side of the collector channel: it registers the run before the program
 * starts, hears the dashboard's Stop, reports the program's exit and waits for the run's end.
 */
export class LauncherClient {
  private endedMessage: ProfileEnded | undefined;
  private lost: string | undefined;
  private readonly waiters = new Set<() => void>();
  private stopListener: () => void = () => undefined;

  private constructor(
    private readonly socket: WebSocket,
    readonly runId: string,
    readonly url: string | undefined,
  ) {
    socket.on('message', (data: RawData) => {
      const message = JSON.parse(textOf(data)) as ProfileServerMessage;
      if (message.type === 'stop') {
        this.stopListener();
      } else if (message.type === 'ended') {
        this.endedMessage = message;
        this.wake();
      } else if (message.type === 'refused') {
        this.lost = message.reason;
        this.wake();
      }
    });
    socket.on('close', () => {
      this.lost ??= 'the server closed the connection';
      this.wake();
    });
  }

  /** Connects and registers a run; rejects with the server's refusal or why it cannot connect. */
  static open(target: CollectorTarget, title: string, originNs: bigint): Promise<LauncherClient> {
    const url =
      target.kind === 'socket'
        ? `ws+unix://${target.path}:${profilePath}`
        : `${target.origin.replace(/^http/, 'ws')}${profilePath}`;
    const headers =
      target.kind === 'url' && target.token !== undefined
        ? { authorization: `Bearer ${target.token}` }
        : {};
    const socket = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      socket.once('open', () => {
        socket.send(
          JSON.stringify({
            type: 'hello',
            role: 'launcher',
            protocol: profileProtocol,
            title,
            originNs: originNs.toString(),
          }),
        );
      });
      socket.once('message', (data: RawData) => {
        const message = JSON.parse(textOf(data)) as ProfileServerMessage;
        if (message.type === 'welcome') {
          resolve(new LauncherClient(socket, message.runId, message.url));
        } else {
          reject(
            new Error(message.type === 'refused' ? message.reason : `unexpected ${message.type}`),
          );
          socket.close();
        }
      });
      socket.once('unexpected-response', (_req, res) => {
        reject(new Error(`the server refused the connection with HTTP ${res.statusCode}`));
      });
      socket.once('error', (error) => reject(error));
    });
  }

  onStop(listener: () => void): void {
    this.stopListener = listener;
  }

  /** Tells the server how the program ended. */
  exited(code: number | null, signal: string | null): void {
    if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ type: 'exit', code, signal }));
    }
  }

  /** The run's end as the server reports it, or why it will not come. */
  async ended(timeoutMs: number): Promise<ProfileEnded | string> {
    const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    const done = new Promise<void>((resolve) => {
      if (this.endedMessage !== undefined || this.lost !== undefined) {
        resolve();
      } else {
        this.waiters.add(resolve);
      }
    });
    await Promise.race([timer, done]);
    return (
      this.endedMessage ??
      this.lost ??
      `the server did not report the run's end within ${timeoutMs} ms`
    );
  }

  close(): void {
    this.socket.close();
  }

  private wake(): void {
    for (const waiter of this.waiters) {
      waiter();
    }
    this.waiters.clear();
  }
}

function textOf(data: RawData): string {
  return Array.isArray(data)
    ? Buffer.concat(data).toString('utf8')
    : Buffer.from(data as ArrayBuffer).toString('utf8');
}
