import { randomBytes } from 'node:crypto';
import type { RawData } from 'ws';
import { WebSocket } from 'ws';
import { OpKind, Trace, TraceEncoder } from '@streamscope/trace';
import { encodeLiveFrame } from '../live/protocol.ts';
import type { ProfileServerMessage } from './profile-protocol.ts';
import { profilePath } from './profile-protocol.ts';

/**
 * A test-only stand-in for the injection collector and the `profile` CLI: it speaks the
 * collector channel with records made by the codec's TraceEncoder, so the server's side is
 * tested without a GPU (the native collector's own test drives the real one).
 */
export class TestSender {
  readonly messages: ProfileServerMessage[] = [];
  closed = false;
  closeReason = '';
  private readonly checks = new Set<() => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: RawData) => {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
      this.messages.push(JSON.parse(bytes.toString('utf8')) as ProfileServerMessage);
      this.check();
    });
    socket.on('close', (_code, reason) => {
      this.closed = true;
      this.closeReason = reason.toString('utf8');
      this.check();
    });
  }

  /** Connects to a Unix socket path, or to `ws://host:port` (the server's port). */
  static connect(target: string, token?: string): Promise<TestSender> {
    const url = target.startsWith('ws://')
      ? `${target}${profilePath}`
      : `ws+unix://${target}:${profilePath}`;
    const socket = new WebSocket(url, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new TestSender(socket)));
      socket.once('unexpected-response', (_req, res) =>
        reject(new Error(`refused with HTTP ${res.statusCode}`)),
      );
      socket.once('error', reject);
    });
  }

  sendJson(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  sendFrame(runId: string, seq: number, batches: Uint8Array): void {
    this.socket.send(encodeLiveFrame(runId, seq, batches));
  }

  /** The first message of a type, once it arrives. */
  untilMessage<T extends ProfileServerMessage['type']>(
    type: T,
  ): Promise<Extract<ProfileServerMessage, { type: T }>> {
    return this.until(() => this.messages.some((m) => m.type === type)).then(
      () =>
        this.messages.find((m) => m.type === type) as Extract<ProfileServerMessage, { type: T }>,
    );
  }

  until(predicate: () => boolean): Promise<void> {
    if (predicate()) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const check = (): void => {
        if (predicate()) {
          this.checks.delete(check);
          resolve();
        }
      };
      this.checks.add(check);
    });
  }

  untilClosed(): Promise<void> {
    return this.until(() => this.closed);
  }

  close(): void {
    this.socket.close();
  }

  private check(): void {
    for (const check of [...this.checks]) {
      check();
    }
  }
}

/** A launcher hello (what the CLI says before it starts the program). */
export function launcherHello(title: string, originNs = 1_000_000_000n): Record<string, unknown> {
  return { type: 'hello', role: 'launcher', protocol: 1, title, originNs: originNs.toString() };
}

/** One profiled process's own record stream, built as the collector would build it. */
export class FakeProcess {
  readonly trace: Trace;
  readonly instance = randomBytes(8).toString('hex');
  private readonly encoder: TraceEncoder;
  private seq = 0;
  private readonly thread: number;
  private readonly stream: number;
  private nextStartNs = 1000;

  constructor(
    readonly pid: number,
    readonly originNs = 1_000_000_000n,
  ) {
    this.trace = new Trace({
      title: `python (pid ${pid})`,
      sourceFormat: 'streamscope-cuda',
      producer: 'streamscope-profile 0.1',
      timingMethod: 'cupti',
      originNs: originNs.toString(),
    });
    this.trace.addDevice({ deviceId: 0, name: 'NVIDIA H100' });
    this.trace.addProcess({ pid, name: 'python' });
    this.thread = this.trace.addTrack({ kind: 'host-thread', name: 'python', pid, tid: pid });
    this.stream = this.trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid,
      deviceId: 0,
      contextId: 1,
      streamId: 7,
      streamType: 'legacy-default',
      priority: 0,
    });
    this.encoder = new TraceEncoder(this.trace);
  }

  hello(runId?: string): Record<string, unknown> {
    return {
      type: 'hello',
      role: 'process',
      protocol: 1,
      codecVersion: 1,
      instance: this.instance,
      pid: this.pid,
      ppid: 1,
      processName: 'python',
      originNs: this.originNs.toString(),
      ...(runId !== undefined ? { runId } : {}),
    };
  }

  /** n launches: an API call on the thread, its kernel on the stream, a flow between them. */
  addKernels(n: number, name = 'gemm'): void {
    const apiName = this.trace.strings.intern('cudaLaunchKernel');
    const kernelName = this.trace.strings.intern(name);
    for (let i = 0; i < n; i++) {
      const t = this.nextStartNs;
      const correlationId = this.trace.ops.count + 1;
      const api = this.trace.addOp({
        startNs: t,
        endNs: t + 500,
        track: this.thread,
        kind: OpKind.ApiCall,
        nameId: apiName,
        correlationId,
      });
      const kernel = this.trace.addOp({
        startNs: t + 1000,
        endNs: t + 5000,
        track: this.stream,
        kind: OpKind.Kernel,
        nameId: kernelName,
        correlationId,
      });
      this.trace.flows.append(api, kernel, 1);
      this.nextStartNs += 6000;
    }
  }

  addRange(name: string, startNs: number, endNs: number): void {
    this.trace.ranges.append({
      startNs,
      endNs,
      track: this.thread,
      nameId: this.trace.strings.intern(name),
      domainId: 0,
      depth: 0,
      kind: 0,
    });
  }

  /** What is new since the last frame, with its seq. */
  nextFrame(): { seq: number; batches: Uint8Array } {
    return { seq: this.seq++, batches: this.encoder.encodeNew() };
  }

  /** The last frame: what is new and the end batch. */
  lastFrame(): { seq: number; batches: Uint8Array } {
    const body = this.encoder.encodeNew();
    const end = this.encoder.encodeEnd();
    const batches = new Uint8Array(body.length + end.length);
    batches.set(body);
    batches.set(end, body.length);
    return { seq: this.seq++, batches };
  }
}
