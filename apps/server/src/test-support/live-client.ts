import type { RawData } from 'ws';
import { WebSocket } from 'ws';
import { Trace, TraceDecoder } from '@streamscope/trace';
import type { ClientMessage, ServerMessage } from '../live/protocol.ts';
import { decodeLiveFrame } from '../live/protocol.ts';

/** A live-channel client for tests: records control messages and decodes frames into a trace. */
export class LiveClient {
  readonly messages: ServerMessage[] = [];
  readonly seqs: number[] = [];
  ended = false;
  private readonly checks = new Set<() => void>();

  private constructor(
    readonly socket: WebSocket,
    readonly decoder: TraceDecoder,
  ) {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
      if (isBinary) {
        const frame = decodeLiveFrame(bytes);
        this.seqs.push(frame.seq);
        if (this.decoder.apply(frame.batches).end !== undefined) {
          this.ended = true;
        }
      } else {
        this.messages.push(JSON.parse(bytes.toString('utf8')) as ServerMessage);
      }
      for (const check of this.checks) {
        check();
      }
    });
  }

  /** Connects; pass the decoder of an earlier connection to go on decoding into its trace. */
  static connect(
    url: string,
    options: { headers?: Record<string, string>; decoder?: TraceDecoder } = {},
  ): Promise<LiveClient> {
    const socket = new WebSocket(url, { headers: options.headers ?? {} });
    const decoder = options.decoder ?? new TraceDecoder(new Trace());
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new LiveClient(socket, decoder)));
      socket.once('unexpected-response', (_req, res) =>
        reject(new Error(`refused with HTTP ${res.statusCode}`)),
      );
      socket.once('error', reject);
    });
  }

  send(message: ClientMessage | Record<string, unknown> | string): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  get trace(): Trace {
    return this.decoder.trace;
  }

  /** Resolves once `predicate` holds (checked after every message). */
  until(predicate: (client: LiveClient) => boolean): Promise<void> {
    if (predicate(this)) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const check = (): void => {
        if (predicate(this)) {
          this.checks.delete(check);
          resolve();
        }
      };
      this.checks.add(check);
    });
  }

  untilMessage(type: ServerMessage['type']): Promise<ServerMessage> {
    return this.until((c) => c.messages.some((m) => m.type === type)).then(() =>
      this.messages.find((m) => m.type === type)!,
    );
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) {
        resolve();
        return;
      }
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
