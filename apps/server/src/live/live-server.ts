import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData } from 'ws';
import { WebSocket, WebSocketServer } from 'ws';
import { ApiError } from '../http/api-error.ts';
import type { RunFeed } from './feed.ts';
import type { ServerMessage } from './protocol.ts';
import { parseClientMessage } from './protocol.ts';
import { Subscription } from './subscription.ts';

export interface LiveServerOptions {
  /** The run's feed (its live log, or its stored file), or why it cannot be watched. */
  readonly openLog: (runId: string) => Promise<RunFeed | ApiError>;
  /** Checks host, origin and token of an upgrade request; an ApiError refuses it. */
  readonly authorize: (request: IncomingMessage) => ApiError | undefined;
  readonly highWaterBytes: number;
  readonly maxSubscriptionsPerSocket: number;
  readonly maxMessageBytes: number;
  readonly heartbeatMs: number;
}

export const livePath = '/api/live';

export interface LiveStats {
  readonly clients: number;
  readonly subscriptions: number;
  readonly throttleWaits: number;
  /**
   * Bytes the server holds for its subscribers: what waits unsent in each socket's buffer, and
   * what each subscription holds of its own (a stored run's frame being read). A live run's
   * shared log is not counted: it is the run's, whoever watches.
   */
  readonly heldBytes: number;
  /** Stored-run files held open for subscribers. */
  readonly openFiles: number;
  /** Subscriptions waiting for their socket to drain below the high-water mark. */
  readonly throttled: number;
}

interface Client {
  readonly subscriptions: Map<string, Subscription>;
  /** Subscribe requests still opening their run: they count against the limit too. */
  opening: number;
  alive: boolean;
}

/** The ws endpoint at /api/live: subscriptions to runs, each streamed from a cursor. */
export class LiveServer {
  private readonly wss: WebSocketServer;
  private readonly clients = new Map<WebSocket, Client>();
  private readonly heartbeat: NodeJS.Timeout;
  private throttleWaits = 0;

  constructor(private readonly options: LiveServerOptions) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
    this.wss.on('connection', (socket: WebSocket) => this.accept(socket));
    this.heartbeat = setInterval(() => this.checkAlive(), options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Handles an HTTP upgrade; refuses other paths and unauthorized requests with an HTTP status. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== livePath) {
      refuse(socket, 404, 'Not Found');
      return;
    }
    const problem = this.options.authorize(request);
    if (problem !== undefined) {
      refuse(socket, problem.status, problem.message);
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.wss.emit('connection', ws, request));
  }

  /** Sockets, subscriptions, what they hold, and how often one waited for a socket to drain. */
  stats(): LiveStats {
    let subscriptions = 0;
    let heldBytes = 0;
    let openFiles = 0;
    let throttled = 0;
    for (const [socket, client] of this.clients) {
      subscriptions += client.subscriptions.size;
      heldBytes += socket.bufferedAmount;
      for (const subscription of client.subscriptions.values()) {
        heldBytes += subscription.source.heldBytes;
        openFiles += subscription.source.openFiles;
        throttled += subscription.isWaiting ? 1 : 0;
      }
    }
    return {
      clients: this.clients.size,
      subscriptions,
      throttleWaits: this.throttleWaits,
      heldBytes,
      openFiles,
      throttled,
    };
  }

  private accept(socket: WebSocket): void {
    const client: Client = { subscriptions: new Map(), opening: 0, alive: true };
    this.clients.set(socket, client);
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      void this.onMessage(socket, client, data, isBinary);
    });
    socket.on('close', () => {
      for (const subscription of client.subscriptions.values()) {
        subscription.stop();
      }
      this.clients.delete(socket);
    });
    socket.on('error', () => socket.terminate());
  }

  private async onMessage(
    socket: WebSocket,
    client: Client,
    data: RawData,
    isBinary: boolean,
  ): Promise<void> {
    if (isBinary) {
      send(socket, {
        type: 'error',
        code: 'bad-message',
        message: 'send JSON text messages, not binary',
      });
      return;
    }
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data as ArrayBuffer).toString('utf8');
    const parsed = parseClientMessage(text);
    if (!parsed.ok) {
      send(socket, { type: 'error', code: 'bad-message', message: parsed.error });
      return;
    }
    const message = parsed.message;
    const existing = client.subscriptions.get(message.runId);
    if (message.type === 'unsubscribe') {
      existing?.stop();
      return;
    }
    // Re-subscribing replaces the old cursor (a client resuming on the same socket).
    existing?.stop();
    // A burst of subscribes arrives before any has opened its run: count those opening, so the
    // limit holds (each stored run holds a file open).
    if (client.subscriptions.size + client.opening >= this.options.maxSubscriptionsPerSocket) {
      send(socket, {
        type: 'error',
        code: 'too-many-subscriptions',
        message: `at most ${this.options.maxSubscriptionsPerSocket} runs per connection`,
        runId: message.runId,
      });
      return;
    }
    client.opening++;
    try {
      await this.subscribe(socket, client, message.runId, message.fromSeq ?? 0);
    } finally {
      client.opening--;
    }
  }

  private async subscribe(
    socket: WebSocket,
    client: Client,
    runId: string,
    fromSeq: number,
  ): Promise<void> {
    const feed = await this.options.openLog(runId);
    if (socket.readyState !== WebSocket.OPEN) {
      return;
    }
    if (feed instanceof ApiError) {
      send(socket, { type: 'error', code: feed.code, message: feed.message, runId });
      return;
    }
    if (fromSeq > feed.frameCount) {
      send(socket, {
        type: 'error',
        code: 'bad-seq',
        message: `fromSeq ${fromSeq} is beyond the ${feed.frameCount} frames run ${runId} has sent`,
        runId,
      });
      return;
    }
    let source;
    try {
      source = await feed.open(fromSeq);
    } catch {
      send(socket, {
        type: 'error',
        code: 'not-found',
        message: `run ${runId}'s trace file could not be read`,
        runId,
      });
      return;
    }
    if (socket.readyState !== WebSocket.OPEN) {
      source.close();
      return;
    }
    send(socket, {
      type: 'subscribed',
      runId,
      status: feed.status,
      nextSeq: fromSeq,
    });
    const subscription = new Subscription(
      socket,
      source,
      this.options.highWaterBytes,
      (done) => {
        if (client.subscriptions.get(runId) === done) {
          client.subscriptions.delete(runId);
        }
      },
      () => this.throttleWaits++,
    );
    client.subscriptions.get(runId)?.stop();
    client.subscriptions.set(runId, subscription);
    subscription.pump();
  }

  private checkAlive(): void {
    for (const [socket, client] of this.clients) {
      if (!client.alive) {
        socket.terminate();
        continue;
      }
      client.alive = false;
      socket.ping();
    }
  }

  /** Closes every socket (code 1001, going away) and the endpoint. */
  close(): Promise<void> {
    clearInterval(this.heartbeat);
    for (const socket of this.clients.keys()) {
      socket.close(1001, 'server shutting down');
    }
    return new Promise((resolve) => {
      this.wss.close(() => resolve());
      for (const socket of this.clients.keys()) {
        socket.terminate();
      }
    });
  }
}

function send(socket: WebSocket, message: ServerMessage): void {
  if (socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(message));
  }
}

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: { code: 'refused', message } });
  socket.end(
    `HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Forbidden'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
