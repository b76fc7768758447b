import { LiveRun } from '@streamscope/executor';
import { Trace, formatDurationNs } from '@streamscope/trace';
import type { LiveFrame } from '../live/protocol.ts';
import { ProcessMerge } from './process-merge.ts';
import type {
  LauncherExit,
  ProcessBye,
  ProcessHello,
  ProfileServerMessage,
} from './profile-protocol.ts';

export const profileProducer = 'streamscope-profile 0.1';

/** One side of a collector connection, as a run sees it. */
export interface ProfileConnection {
  send(message: ProfileServerMessage): void;
  close(reason: string): void;
}

export interface ProfileTiming {
  /** How long a process whose connection dropped may take to come back. */
  readonly reconnectGraceMs: number;
  /** After the program exited, how long its processes may take to deliver their last records. */
  readonly exitGraceMs: number;
  /** After Stop, how long the program may take to end before the run ends without it. */
  readonly stopGraceMs: number;
}

export const defaultProfileTiming: ProfileTiming = {
  reconnectGraceMs: 20_000,
  exitGraceMs: 5_000,
  stopGraceMs: 15_000,
};

interface ProcessState {
  readonly hello: ProcessHello;
  readonly merge: ProcessMerge;
  nextSeq: number;
  connection: ProfileConnection | undefined;
  state: 'connected' | 'away' | 'done';
  bye?: ProcessBye;
  failure?: string;
  awayTimer?: NodeJS.Timeout;
}

/**
 * A profiled program's run: the processes that join it (each its own record stream, merged into
 * one trace grouped by process), the launcher that started the program (the `profile` CLI, when
 * there is one), and the rules for when it ends and how. It is a RunHandle, so the run manager
 * streams, watches and stores it exactly like an executor run.
 */
export class ProfileRun extends LiveRun {
  /** Set by the registry once the run manager listed it. */
  runId = '';
  private readonly processes = new Map<string, ProcessState>();
  private launcher: ProfileConnection | undefined;
  private launcherExit: LauncherExit | undefined;
  private launcherLeft = false;
  private stopRequested = false;
  private endTimer: NodeJS.Timeout | undefined;
  private readonly warnings: string[] = [];

  constructor(
    readonly title: string,
    readonly originNs: bigint,
    private readonly hasLauncher: boolean,
    private readonly timing: ProfileTiming = defaultProfileTiming,
  ) {
    super(
      new Trace({
        title,
        sourceFormat: 'streamscope-cuda',
        producer: profileProducer,
        timingMethod: 'cupti',
        originNs: originNs.toString(),
        createdAt: new Date().toISOString(),
      }),
    );
    this.setCancel(() => this.stop());
  }

  get processCount(): number {
    return this.processes.size;
  }

  attachLauncher(connection: ProfileConnection): void {
    this.launcher = connection;
  }

  /** A process says hello (first time or reconnecting); returns where its frames resume, or why not. */
  join(hello: ProcessHello, connection: ProfileConnection): { nextSeq: number } | string {
    if (this.ended !== undefined) {
      return `run '${this.runId}' has ended (${this.ended.status})`;
    }
    const known = this.processes.get(hello.instance);
    if (known !== undefined) {
      if (known.state === 'done') {
        return `pid ${hello.pid} has already left run '${this.runId}'`;
      }
      clearTimeout(known.awayTimer);
      known.connection?.close('replaced by a new connection of the same process');
      known.connection = connection;
      known.state = 'connected';
      return { nextSeq: known.nextSeq };
    }
    this.processes.set(hello.instance, {
      hello,
      merge: new ProcessMerge(this.trace, this.originNs),
      nextSeq: 0,
      connection,
      state: 'connected',
    });
    clearTimeout(this.endTimer);
    this.endTimer = undefined;
    return { nextSeq: 0 };
  }

  /** A binary frame from a process; returns an error that ends its connection, or undefined. */
  frame(instance: string, frame: LiveFrame): string | undefined {
    const p = this.processes.get(instance);
    if (p === undefined || p.state === 'done') {
      return 'frame from a process that has not joined';
    }
    if (frame.runId !== this.runId) {
      return `frame for run '${frame.runId}' on a connection of run '${this.runId}'`;
    }
    if (frame.seq < p.nextSeq) {
      p.connection?.send({ type: 'ack', seq: p.nextSeq }); // a resend after a reconnect
      return undefined;
    }
    if (frame.seq > p.nextSeq) {
      return `frame ${frame.seq} from pid ${p.hello.pid} but ${p.nextSeq} was expected: frames are missing`;
    }
    try {
      p.merge.apply(frame.batches);
    } catch (error) {
      const why = `pid ${p.hello.pid} sent corrupt records in frame ${frame.seq}: ${(error as Error).message}`;
      p.connection = undefined; // the caller refuses it with the reason
      this.finishProcess(p, why);
      return why;
    }
    p.nextSeq++;
    p.connection?.send({ type: 'ack', seq: p.nextSeq });
    this.grew();
    return undefined;
  }

  bye(instance: string, report: ProcessBye): void {
    const p = this.processes.get(instance);
    if (p === undefined) {
      return;
    }
    p.bye = report;
    this.finishProcess(p, undefined);
  }

  /** A process's connection closed: it has a while to come back before it counts as lost. */
  disconnected(instance: string, connection: ProfileConnection): void {
    const p = this.processes.get(instance);
    if (p === undefined || p.connection !== connection || p.state === 'done') {
      return;
    }
    p.connection = undefined;
    p.state = 'away';
    // After the program exited nobody will come back.
    const graceMs = this.launcherExit !== undefined ? 0 : this.timing.reconnectGraceMs;
    p.awayTimer = setTimeout(() => {
      this.finishProcess(
        p,
        `pid ${p.hello.pid} ended without closing its collector (killed, or left through _exit); its last records may be missing`,
      );
    }, graceMs);
  }

  launcherExited(exit: LauncherExit): void {
    this.launcherExit = exit;
    for (const p of this.processes.values()) {
      if (p.state === 'away') {
        clearTimeout(p.awayTimer);
        this.finishProcess(
          p,
          `pid ${p.hello.pid} ended without closing its collector (killed, or left through _exit); its last records may be missing`,
        );
      }
    }
    this.maybeEnd();
  }

  /** The launcher's connection closed (the CLI was killed): end as if the program had. */
  launcherGone(connection: ProfileConnection): void {
    if (this.launcher !== connection) {
      return;
    }
    this.launcher = undefined;
    if (this.launcherExit === undefined) {
      this.launcherLeft = true;
      this.maybeEnd();
    }
  }

  /** Ends the run without the program (the server is stopping); the program runs on unwatched. */
  detach(reason: string): void {
    for (const p of this.processes.values()) {
      p.connection?.send({ type: 'refused', reason });
      p.connection?.close(reason);
    }
    this.end('failed', reason);
  }

  private stop(): void {
    this.stopRequested = true;
    if (this.launcher !== undefined) {
      this.launcher.send({ type: 'stop' });
    } else {
      for (const p of this.processes.values()) {
        p.connection?.send({ type: 'stop' });
      }
    }
    setTimeout(() => {
      if (this.ended === undefined) {
        this.detach(`the program did not end within ${this.timing.stopGraceMs} ms of Stop`);
      }
    }, this.timing.stopGraceMs).unref();
  }

  private finishProcess(p: ProcessState, failure: string | undefined): void {
    if (p.state === 'done') {
      return;
    }
    clearTimeout(p.awayTimer);
    p.state = 'done';
    p.failure = failure;
    if (failure !== undefined) {
      this.warnings.push(failure);
    }
    const pid = p.hello.pid;
    const r = p.bye;
    if (r !== undefined) {
      if ((r.dropped ?? 0) > 0) {
        this.warnings.push(
          `pid ${pid}: ${r.dropped} records dropped at the collector's memory cap`,
        );
      }
      if ((r.cuptiDropped ?? 0) > 0) {
        this.warnings.push(
          `pid ${pid}: ${r.cuptiDropped} records dropped by CUPTI (its buffers were full)`,
        );
      }
      if ((r.flowsDropped ?? 0) > 0) {
        this.warnings.push(
          `pid ${pid}: ${r.flowsDropped} flows dropped at the collector's bounds (arrows not drawn)`,
        );
      }
      if ((r.detailsDropped ?? 0) > 0) {
        this.warnings.push(
          `pid ${pid}: ${r.detailsDropped} names, launch configurations or lane details dropped at the collector's bounds`,
        );
      }
      if ((r.incomplete ?? 0) > 0) {
        this.warnings.push(
          `pid ${pid}: ${r.incomplete} GPU records had not finished when the process exited`,
        );
      }
      if (r.error !== undefined) {
        this.warnings.push(`pid ${pid}: ${r.error}`);
      }
    }
    if (p.merge.clampedBefore > 0) {
      this.warnings.push(
        `pid ${pid}: ${p.merge.clampedBefore} records began before the run's start and were placed at 0`,
      );
    }
    p.connection?.close('done');
    p.connection = undefined;
    this.maybeEnd();
  }

  private maybeEnd(): void {
    if (this.ended !== undefined) {
      return;
    }
    const open = [...this.processes.values()].filter((p) => p.state !== 'done');
    const programDone = this.launcherExit !== undefined || this.launcherLeft;
    if (this.hasLauncher && !programDone) {
      return;
    }
    if (open.length === 0 && (this.hasLauncher || this.processes.size > 0)) {
      this.endNow();
      return;
    }
    if (programDone && this.endTimer === undefined) {
      // The program is gone; processes still connected get a moment to deliver their last batch.
      this.endTimer = setTimeout(() => {
        for (const p of this.processes.values()) {
          if (p.state !== 'done') {
            this.finishProcess(
              p,
              `pid ${p.hello.pid} was still connected ${this.timing.exitGraceMs} ms after the program ended`,
            );
          }
        }
        this.endNow();
      }, this.timing.exitGraceMs);
    }
  }

  private endNow(): void {
    const exit = this.launcherExit;
    const ops = this.trace.ops.count;
    const opened = this.processes.size;
    if (exit !== undefined && exit.code !== 0 && exit.code !== null) {
      this.warnings.push(`the program exited with status ${exit.code}`);
    }
    if (this.stopRequested) {
      this.end('cancelled');
    } else if (ops === 0 && this.trace.ranges.count === 0) {
      const errors = [...this.processes.values()].flatMap((p) =>
        p.bye?.error !== undefined ? [`pid ${p.hello.pid}: ${p.bye.error}`] : [],
      );
      const how = exit === undefined ? 'ended' : describeExit(exit);
      const why =
        errors.length > 0
          ? errors.join('; ')
          : opened === 0
            ? `the program ${how} and no process of it initialized CUDA`
            : `the program ${how}; ${opened} process${opened === 1 ? '' : 'es'} initialized CUDA but ran no GPU work`;
      this.end('failed', `no CUDA activity was recorded: ${why}`);
    } else if (exit?.signal !== null && exit?.signal !== undefined && exit.signal !== 'SIGINT') {
      this.end(
        'failed',
        `the program was killed by ${exit.signal}; what arrived is kept (${ops} ops over ${formatDurationNs(this.trace.spanNs())})`,
      );
    } else if (this.launcherLeft) {
      this.end(
        'failed',
        'the profile command went away before its program ended; what arrived is kept',
      );
    } else {
      this.end('finished');
    }
  }

  private end(status: 'finished' | 'cancelled' | 'failed', reason?: string): void {
    if (this.ended !== undefined) {
      return;
    }
    clearTimeout(this.endTimer);
    for (const p of this.processes.values()) {
      clearTimeout(p.awayTimer);
    }
    if (this.warnings.length > 0) {
      this.trace.meta = {
        ...this.trace.meta,
        warnings: [...(this.trace.meta.warnings ?? []), ...this.warnings],
      };
    }
    this.finish(status === 'failed' ? { status, reason: reason ?? 'unknown' } : { status });
    this.launcher?.send({
      type: 'ended',
      runId: this.runId,
      status,
      ...(reason !== undefined ? { reason } : {}),
      opCount: this.trace.ops.count,
      processes: this.processes.size,
      warnings: this.trace.meta.warnings ?? [],
    });
  }
}

function describeExit(exit: LauncherExit): string {
  return exit.signal !== null
    ? `was ended by ${exit.signal}`
    : `exited with status ${exit.code ?? '?'}`;
}
