/**
 * The collector channel at /api/profile (on the server's port, token-checked like the live
 * channel) and on the Unix socket `profile.sock` in the data folder (mode 0600). It is the live
 * channel's protocol turned around: the profiled process sends binary live frames
 * (live/protocol.ts: 'SSL1', seq, run id, codec batches) and JSON text control messages.
 *
 *   collector → server  hello (first message), then frames; a process ends with bye, a
 *                       launcher (the `profile` CLI) reports its program's exit
 *   server → collector  welcome {runId, nextSeq} or refused {reason}; ack {seq} after frames are
 *                       applied; stop (the dashboard's Stop); ended (to a launcher)
 *
 * A process that reconnects says hello with the same instance id and resumes at `nextSeq`.
 */
export const profilePath = '/api/profile';
export const profileSocketName = 'profile.sock';
export const profileProtocol = 1;

const runIdPattern = /^[A-Za-z0-9_-]{1,64}$/;
const instancePattern = /^[0-9a-f]{8,32}$/;
const decimalPattern = /^\d{1,20}$/;

/** A profiled process joining (or starting) a run. */
export interface ProcessHello {
  readonly type: 'hello';
  readonly role: 'process';
  readonly protocol: number;
  readonly codecVersion: number;
  /** Random per collector: a reconnect says the same, a restarted pid says another. */
  readonly instance: string;
  readonly pid: number;
  readonly ppid: number;
  readonly processName: string;
  /** CLOCK_REALTIME ns of the process's trace time 0: the clock every process and the server share. */
  readonly originNs: string;
  readonly runId?: string;
  readonly title?: string;
}

/** The `profile` CLI registering a run before it starts the program. */
export interface LauncherHello {
  readonly type: 'hello';
  readonly role: 'launcher';
  readonly protocol: number;
  readonly title: string;
  /** CLOCK_REALTIME ns when the program is started: the run's time 0. */
  readonly originNs: string;
}

/** What a process reports as it leaves: what it recorded and what it lost. */
export interface ProcessBye {
  readonly type: 'bye';
  readonly ops?: number;
  readonly dropped?: number;
  readonly cuptiDropped?: number;
  readonly refusedBuffers?: number;
  readonly incomplete?: number;
  /** Flows (arrows) lost at the collector's bounds (native/src/collector-bounds.h). */
  readonly flowsDropped?: number;
  /** Names, launch configurations or lane details lost at the collector's bounds. */
  readonly detailsDropped?: number;
  /** Why the process collected nothing (another profiler holds CUPTI, say). */
  readonly error?: string;
}

/** The launcher's program ended. */
export interface LauncherExit {
  readonly type: 'exit';
  readonly code: number | null;
  readonly signal: string | null;
}

export type CollectorMessage = ProcessHello | LauncherHello | ProcessBye | LauncherExit;

/** How a profile run ended, as its launcher hears it. */
export interface ProfileEnded {
  readonly type: 'ended';
  readonly runId: string;
  readonly status: 'finished' | 'failed' | 'cancelled';
  readonly reason?: string;
  readonly opCount: number;
  readonly processes: number;
  readonly warnings: readonly string[];
}

export type ProfileServerMessage =
  | {
      readonly type: 'welcome';
      readonly runId: string;
      readonly nextSeq: number;
      readonly url?: string;
    }
  | { readonly type: 'refused'; readonly reason: string }
  | { readonly type: 'ack'; readonly seq: number }
  | { readonly type: 'stop' }
  | ProfileEnded;

type Parsed = { ok: true; message: CollectorMessage } | { ok: false; error: string };

function fail(error: string): Parsed {
  return { ok: false, error };
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER;
}

function shortText(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length <= max;
}

function checkHello(o: Record<string, unknown>): Parsed {
  if (o['protocol'] !== profileProtocol) {
    return fail(
      `$.protocol must be ${profileProtocol}, got ${JSON.stringify(o['protocol']) ?? 'nothing'}`,
    );
  }
  if (!shortText(o['originNs'], 20) || !decimalPattern.test(o['originNs'])) {
    return fail('$.originNs must be a decimal string of ns');
  }
  if (o['role'] === 'launcher') {
    if (!shortText(o['title'], 200) || o['title'] === '') {
      return fail('$.title must be a string of 1 to 200 characters');
    }
    return { ok: true, message: o as unknown as LauncherHello };
  }
  if (o['role'] !== 'process') {
    return fail(
      `$.role must be 'process' or 'launcher', got ${JSON.stringify(o['role']) ?? 'nothing'}`,
    );
  }
  if (!isCount(o['codecVersion'])) {
    return fail('$.codecVersion must be a non-negative integer');
  }
  if (typeof o['instance'] !== 'string' || !instancePattern.test(o['instance'])) {
    return fail('$.instance must be 8 to 32 lowercase hex digits');
  }
  for (const key of ['pid', 'ppid']) {
    if (!isCount(o[key]) || o[key] > 0xffffffff) {
      return fail(`$.${key} must be a process id`);
    }
  }
  if (!shortText(o['processName'], 256)) {
    return fail('$.processName must be a string of at most 256 characters');
  }
  if (
    o['runId'] !== undefined &&
    (typeof o['runId'] !== 'string' || !runIdPattern.test(o['runId']))
  ) {
    return fail('$.runId must be a run id (1 to 64 characters of [A-Za-z0-9_-])');
  }
  if (o['title'] !== undefined && !shortText(o['title'], 200)) {
    return fail('$.title must be a string of at most 200 characters');
  }
  return { ok: true, message: o as unknown as ProcessHello };
}

/** Parses one text message from a collector; the error names the JSON path. */
export function parseCollectorMessage(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('message is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('message must be a JSON object');
  }
  const o = value as Record<string, unknown>;
  switch (o['type']) {
    case 'hello':
      return checkHello(o);
    case 'bye': {
      for (const key of [
        'ops',
        'dropped',
        'cuptiDropped',
        'refusedBuffers',
        'incomplete',
        'flowsDropped',
        'detailsDropped',
      ]) {
        if (o[key] !== undefined && !isCount(o[key])) {
          return fail(`$.${key} must be a non-negative integer`);
        }
      }
      if (o['error'] !== undefined && !shortText(o['error'], 1000)) {
        return fail('$.error must be a string of at most 1000 characters');
      }
      return { ok: true, message: o as unknown as ProcessBye };
    }
    case 'exit': {
      const code = o['code'];
      const signal = o['signal'];
      if (code !== null && !(typeof code === 'number' && Number.isInteger(code))) {
        return fail('$.code must be an integer or null');
      }
      if (signal !== null && !shortText(signal, 32)) {
        return fail('$.signal must be a signal name or null');
      }
      return { ok: true, message: { type: 'exit', code, signal } as LauncherExit };
    }
    default:
      return fail(
        `$.type must be 'hello', 'bye' or 'exit', got ${JSON.stringify(o['type']) ?? 'nothing'}`,
      );
  }
}
