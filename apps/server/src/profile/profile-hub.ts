import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData } from 'ws';
import { WebSocket, WebSocketServer } from 'ws';
import { decodeLiveFrame } from '../live/protocol.ts';
import type { LauncherHello, ProcessHello, ProfileServerMessage } from './profile-protocol.ts';
import { parseCollectorMessage } from './profile-protocol.ts';
import type { ProfileConnection, ProfileRun } from './profile-run.ts';

/** Where hellos lead: the server's run manager, or the CLI's one run when there is no server. */
export interface ProfileRegistry {
  /** A launcher's run, listed at once; or why not. */
  register(hello: LauncherHello): { readonly run: ProfileRun; readonly url?: string } | string;
  /** The run a process joins: the one its hello names, or a new one when it names none. */
  runFor(hello: ProcessHello): ProfileRun | string;
}

export interface ProfileHubOptions {
  /** A connection that says no hello in this time is closed. */
  readonly helloTimeoutMs: number;
  /** Largest message a collector may send (one frame of batches). */
  readonly maxMessageBytes: number;
}

export const defaultHubOptions: ProfileHubOptions = {
  helloTimeoutMs: 10_000,
  maxMessageBytes: 64 * 1024 * 1024,
};

function textOf(data: RawData): string {
  return Array.isArray(data)
    ? Buffer.concat(data).toString('utf8')
    : Buffer.from(data as ArrayBuffer).toString('utf8');
}

function bytesOf(data: RawData): Uint8Array {
  return Array.isArray(data) ? Buffer.concat(data) : new Uint8Array(data as ArrayBuffer);
}

/**
 * Accepts collector connections (profiled processes and launchers), whatever carried them: a
 * Unix socket or the server's port. Every message is checked; a bad one refuses the connection
 * with the reason, and the run keeps what it already has.
 */
export class ProfileHub {
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();

  constructor(
    private readonly registry: ProfileRegistry,
    private readonly options: ProfileHubOptions = defaultHubOptions,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
  }

  get connectionCount(): number {
    return this.sockets.size;
  }

  private accept(ws: WebSocket): void {
    this.sockets.add(ws);
    const send = (message: ProfileServerMessage): void => {
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify(message));
      }
    };
    const connection: ProfileConnection = {
      send,
      close: (reason) => ws.close(1000, reason.slice(0, 120)),
    };
    const refuse = (reason: string): void => {
      send({ type: 'refused', reason });
      ws.close(1008, reason.slice(0, 120));
    };
    let run: ProfileRun | undefined;
    let instance: string | undefined; // set for a process, undefined for a launcher
    let messages = 0;
    const helloTimer = setTimeout(
      () => refuse(`no hello within ${this.options.helloTimeoutMs} ms`),
      this.options.helloTimeoutMs,
    );
    ws.on('message', (data: RawData, isBinary: boolean) => {
      messages++;
      if (isBinary) {
        if (run === undefined || instance === undefined) {
          refuse(`message ${messages}: a binary frame before a process hello`);
          return;
        }
        let problem: string | undefined;
        try {
          problem = run.frame(instance, decodeLiveFrame(bytesOf(data)));
        } catch (error) {
          problem = `message ${messages}: ${(error as Error).message}`;
        }
        if (problem !== undefined) {
          refuse(problem);
        }
        return;
      }
      const parsed = parseCollectorMessage(textOf(data));
      if (!parsed.ok) {
        refuse(`message ${messages}: ${parsed.error}`);
        return;
      }
      const message = parsed.message;
      if (message.type === 'hello') {
        clearTimeout(helloTimer);
        if (run !== undefined) {
          refuse(`message ${messages}: a second hello`);
          return;
        }
        if (message.role === 'launcher') {
          const registered = this.registry.register(message);
          if (typeof registered === 'string') {
            refuse(registered);
            return;
          }
          run = registered.run;
          run.attachLauncher(connection);
          send({
            type: 'welcome',
            runId: run.runId,
            nextSeq: 0,
            ...(registered.url !== undefined ? { url: registered.url } : {}),
          });
          return;
        }
        const found = this.registry.runFor(message);
        if (typeof found === 'string') {
          refuse(found);
          return;
        }
        const joined = found.join(message, connection);
        if (typeof joined === 'string') {
          refuse(joined);
          return;
        }
        run = found;
        instance = message.instance;
        send({ type: 'welcome', runId: run.runId, nextSeq: joined.nextSeq });
        return;
      }
      if (run === undefined) {
        refuse(`message ${messages}: '${message.type}' before a hello`);
        return;
      }
      if (message.type === 'bye' && instance !== undefined) {
        run.bye(instance, message);
      } else if (message.type === 'exit' && instance === undefined) {
        run.launcherExited(message);
      } else {
        refuse(`message ${messages}: '${message.type}' is not for this kind of connection`);
      }
    });
    ws.on('close', () => {
      clearTimeout(helloTimer);
      this.sockets.delete(ws);
      if (run === undefined) {
        return;
      }
      if (instance !== undefined) {
        run.disconnected(instance, connection);
      } else {
        run.launcherGone(connection);
      }
    });
    ws.on('error', () => ws.terminate());
  }

  /** Closes every collector connection (code 1001) and the endpoint. */
  close(): Promise<void> {
    for (const ws of this.sockets) {
      ws.close(1001, 'server shutting down');
    }
    return new Promise((resolve) => {
      this.wss.close(() => resolve());
      for (const ws of this.sockets) {
        ws.terminate();
      }
    });
  }
}
