import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RangeKind, loadTrace, opKindName } from '@streamscope/trace';
import type { Trace } from '@streamscope/trace';
import type { TraceEntry } from '../api-types.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { defaultCollectorCheckPath, defaultCollectorPath } from './collector-paths.ts';

// The real collector, loaded as the driver loads it, fed CUPTI-shaped records by its self-test
// (there is no GPU here) and talking to the real server. `pnpm install` builds it where nvcc is.
const built = existsSync(defaultCollectorPath) && existsSync(defaultCollectorCheckPath);

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runCheck(
  script: string | undefined,
  env: Record<string, string>,
  dir: string,
): Promise<Ran> {
  return (async () => {
    const args = [defaultCollectorPath];
    if (script !== undefined) {
      const file = path.join(dir, 'script.txt');
      await writeFile(file, script);
      args.push(file);
    }
    const child = spawn(defaultCollectorCheckPath, args, {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stdout, stderr };
  })();
}

// One process: a device, its legacy stream and a non-blocking one; kernels launched through the
// runtime and the driver, a pinned H2D copy, a memset, an NVTX range and a mark. The first
// driver call is the runtime launch's own (inside it on the same thread): it is not drawn twice.
const records = `
device 0 132 H100
context 1 0 7
stream 1 13 0 2
range-start 1 77 100 train_step
api driver 307 77 10 1100 1900
api runtime 211 77 10 1000 2000
kernel 0 1 13 10 3000 9000 _Z4gemmPfS_i
api runtime 41 77 11 2100 2500
memcpy 1 2 3 1048576 0 1 13 11 9500 10500
api runtime 51 77 12 2550 2580
memset 4096 3 0 1 7 12 11000 11500
api runtime 131 77 14 2600 2700
mark 77 2800 checkpoint
buffer
api driver 307 77 13 2900 3100
kernel 0 1 7 13 12000 13000 triton_add
range-end 1 77 14000
flush
`;

function describeOps(trace: Trace): string[] {
  const ops = trace.ops.columns();
  const out: string[] = [];
  for (let i = 0; i < ops.count; i++) {
    out.push(`${opKindName(ops.kind[i]!)} ${trace.name(ops.nameId[i]!)} @${ops.startNs[i]}`);
  }
  return out.sort();
}

describe.skipIf(!built)('the injection collector (native, no GPU: its self-test feeds it)', () => {
  let t: TestServer;
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'streamscope-collector-'));
    t = await startTestServer({
      profileTiming: { reconnectGraceMs: 300, exitGraceMs: 300, stopGraceMs: 3000 },
    });
  });

  afterEach(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads as the driver loads it and exports its entry points', async () => {
    const ran = await runCheck(undefined, {}, dir);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toContain('InitializeInjection, InitializeInjectionNvtx2');
    expect(ran.code).toBe(0);
  });

  it('writes a .sstrace the codec reads whole when no server is named', async () => {
    const ran = await runCheck(`${records}exit\n`, { STREAMSCOPE_PROFILE_OUT: 'out.sstrace' }, dir);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(/^streamscope profile: wrote out\.sstrace\n$/);
    const trace = loadTrace(new Uint8Array(await readFile(path.join(dir, 'out.sstrace'))));
    expect(trace.meta).toMatchObject({ sourceFormat: 'streamscope-cuda', timingMethod: 'cupti' });
    expect(describeOps(trace)).toEqual([
      'api-call cuLaunchKernel @2900',
      'api-call cudaLaunchKernel @1000',
      'api-call cudaMemcpyAsync @2100',
      'api-call cudaMemsetAsync @2550',
      'api-call cudaStreamSynchronize @2600',
      'copy-htod Memcpy HtoD @9500',
      'kernel gemm(float*, float*, int) @3000',
      'kernel triton_add @12000',
      'memset Memset @11000',
    ]);
    expect(trace.devices).toEqual([
      expect.objectContaining({ deviceId: 0, name: 'H100', smCount: 132 }),
    ]);
    const streams = trace.tracks.filter((tr) => tr.kind === 'gpu-stream');
    expect(streams.map((s) => [s.streamId, s.kind === 'gpu-stream' && s.streamType])).toEqual([
      [13, 'non-blocking'],
      [7, 'legacy-default'],
    ]);
    // Each launch links to its kernel, the driver launch too.
    const ops = trace.ops.columns();
    const flows = trace.flows.columns();
    const linked = [];
    for (let i = 0; i < flows.count; i++) {
      linked.push(
        `${trace.name(ops.nameId[flows.fromOp[i]!]!)} -> ${trace.name(ops.nameId[flows.toOp[i]!]!)}`,
      );
    }
    expect(linked.sort()).toEqual([
      'cuLaunchKernel -> triton_add',
      'cudaLaunchKernel -> gemm(float*, float*, int)',
      'cudaMemcpyAsync -> Memcpy HtoD',
      'cudaMemsetAsync -> Memset',
    ]);
    const ranges = trace.ranges.columns();
    const drawn = [];
    for (let i = 0; i < ranges.count; i++) {
      drawn.push([
        trace.name(ranges.nameId[i]!),
        ranges.kind[i],
        ranges.startNs[i],
        ranges.endNs[i],
      ]);
    }
    expect(drawn).toEqual([
      ['checkpoint', RangeKind.Mark, 2800, 2800],
      ['train_step', RangeKind.PushPop, 100, 14000],
    ]);
  });

  it('streams to the server over its Unix socket, and Stop reaches the program as SIGINT', async () => {
    const script = `${records}wait-stop 10000\nkernel 0 1 13 20 20000 21000 after_stop\nflush\nexit\n`;
    const running = runCheck(
      script,
      {
        STREAMSCOPE_PROFILE_SOCKET: t.server.profileSocket!,
        STREAMSCOPE_PROFILE_TITLE: 'selftest',
      },
      dir,
    );
    let id = '';
    while (id === '') {
      const list = (await t.api('GET', '/api/traces', '/api/traces')).body as TraceEntry[];
      id = list.find((e) => e.title === 'selftest — live')?.id ?? '';
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    while ((t.server.runs.liveTrace(id)?.ops.count ?? 0) < 8) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await t.api('POST', `/api/runs/${id}/cancel`, '/api/runs/{id}/cancel')).status).toBe(
      202,
    );
    const ran = await running;
    expect(ran.stdout).toBe('SIGINT received\n');
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    let entry = (await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}')).body as TraceEntry;
    while (entry.fileBytes === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      entry = (await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}')).body as TraceEntry;
    }
    // What the program did after Stop (its SIGINT handler's work) arrived too.
    expect(entry).toMatchObject({ status: 'cancelled', title: 'selftest', opCount: 10 });
  });

  it('prints one line and lets the program finish when the server goes away mid-run', async () => {
    // The collector's own flush thread runs, as under CUPTI: the collector turns itself off on
    // that thread, and the program must still exit cleanly (status 0, no abort at exit).
    const script = `flush-thread 10\n${records}sleep 1500\nkernel 0 1 13 20 20000 21000 late\nsleep 600\nexit\n`;
    const running = runCheck(
      script,
      {
        STREAMSCOPE_PROFILE_SOCKET: t.server.profileSocket!,
        STREAMSCOPE_PROFILE_RECONNECT_MS: '200',
      },
      dir,
    );
    while (t.server.store.list().length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await t.close();
    t = await startTestServer();
    const ran = await running;
    expect(ran.code).toBe(0);
    const lines = ran.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^streamscope profile \(pid \d+\): the server stopped while the program ran; what arrived is kept; collection stopped, the program runs on$/,
    );
  });

  it('records API calls from its own callback: a driver call inside a runtime call is not drawn, one of its own is, and each links to its kernel', async () => {
    // The callback STREAMSCOPE_PROFILE_API_CALLBACK=1 gives CUPTI, called here as CUPTI calls it.
    // 211 cudaLaunchKernel (runtime), 307 cuLaunchKernel (driver); correlation ids 20, 21, 22.
    const script = `device 0 132 H100
context 1 0 7
stream 1 13 0 2
cb runtime enter 211 20
cb driver enter 307 21
cb driver exit 307 21
cb runtime exit 211 20
cb driver enter 307 22
cb driver exit 307 22
kernel 0 1 13 20 3000 9000 _Z4gemmPfS_i
kernel 0 1 13 22 12000 13000 triton_add
flush
exit
`;
    const ran = await runCheck(script, { STREAMSCOPE_PROFILE_OUT: 'cb.sstrace' }, dir);
    expect(ran.stderr).toBe('streamscope profile: wrote cb.sstrace\n');
    expect(ran.code).toBe(0);
    const trace = loadTrace(new Uint8Array(await readFile(path.join(dir, 'cb.sstrace'))));
    const ops = trace.ops.columns();
    const names = [];
    for (let i = 0; i < ops.count; i++) {
      names.push(`${opKindName(ops.kind[i]!)} ${trace.name(ops.nameId[i]!)}`);
    }
    expect(names.sort()).toEqual([
      'api-call cuLaunchKernel',
      'api-call cudaLaunchKernel',
      'kernel gemm(float*, float*, int)',
      'kernel triton_add',
    ]);
    const flows = trace.flows.columns();
    const linked = [];
    for (let i = 0; i < flows.count; i++) {
      linked.push(
        `${trace.name(ops.nameId[flows.fromOp[i]!]!)} -> ${trace.name(ops.nameId[flows.toOp[i]!]!)}`,
      );
    }
    expect(linked.sort()).toEqual([
      'cuLaunchKernel -> triton_add',
      'cudaLaunchKernel -> gemm(float*, float*, int)',
    ]);
  });

  it("bounds a thread's API calls between flushes and reports the ones it dropped", async () => {
    // 8200 driver calls with no flush between them: the thread's ring keeps 8192.
    const running = runCheck(
      'cb-burst 8200 307 1000\nexit\n',
      { STREAMSCOPE_PROFILE_SOCKET: t.server.profileSocket!, STREAMSCOPE_PROFILE_TITLE: 'burst' },
      dir,
    );
    const ran = await running;
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    let entry: TraceEntry | undefined;
    while (entry?.fileBytes === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const list = (await t.api('GET', '/api/traces', '/api/traces')).body as TraceEntry[];
      entry = list.find((e) => e.title === 'burst');
    }
    expect(entry.opCount).toBe(8192);
    expect(entry.warnings).toContainEqual(
      expect.stringMatching(/^pid \d+: 8 records dropped at the collector's memory cap$/),
    );
  });

  it('links every one of 150k event record/wait pairs (per_call event case), nothing dropped', async () => {
    // One event recorded and waited on from another stream 150k times, as CUPTI hands the
    // records over (the event records a buffer behind their waits). Linking is O(1) a record:
    // this finishes in a second or two; the limit below only turns a hang into a failure.
    const pairs = 150_000;
    const ran = await runCheck(
      `event-pairs ${pairs} 1 13 14 77\nexit\n`,
      { STREAMSCOPE_PROFILE_OUT: 'out.sstrace' },
      dir,
    );
    expect(ran.stderr).toBe('streamscope profile: wrote out.sstrace\n');
    expect(ran.code).toBe(0);
    const trace = loadTrace(new Uint8Array(await readFile(path.join(dir, 'out.sstrace'))));
    const ops = trace.ops.columns();
    const kinds = new Map<string, number>();
    for (let i = 0; i < ops.count; i++) {
      const k = opKindName(ops.kind[i]!);
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
    expect(Object.fromEntries(kinds)).toEqual({
      'api-call': 2 * pairs,
      'event-record': pairs,
      'stream-wait': pairs,
    });
    // Each wait linked to its own record (same sync id: the record's timestamp is 480 ns
    // after its wait began), and each GPU record to its call.
    const flows = trace.flows.columns();
    let recordToWait = 0;
    let misplaced = 0;
    for (let i = 0; i < flows.count; i++) {
      const from = flows.fromOp[i]!;
      const to = flows.toOp[i]!;
      if (
        opKindName(ops.kind[from]!) === 'event-record' &&
        opKindName(ops.kind[to]!) === 'stream-wait'
      ) {
        recordToWait++;
        if (ops.startNs[from]! - ops.startNs[to]! !== 480) {
          misplaced++;
        }
      }
    }
    expect([recordToWait, misplaced]).toEqual([pairs, 0]);
  }, 60_000);

  it('lets a child forked while the collector runs leave through exit() (no hang, no abort)', async () => {
    const script = `flush-thread 5\n${records}sleep 50\nfork-exit\nexit\n`;
    const ran = await runCheck(script, { STREAMSCOPE_PROFILE_OUT: 'forked.sstrace' }, dir);
    expect(ran.stderr).toBe('streamscope profile: wrote forked.sstrace\n');
    expect(ran.code).toBe(0);
    expect(
      loadTrace(new Uint8Array(await readFile(path.join(dir, 'forked.sstrace')))).ops.count,
    ).toBe(9);
  });

  it('says in one line that there is no server, and collects nothing', async () => {
    const ran = await runCheck(
      `${records}exit\n`,
      { STREAMSCOPE_PROFILE_SOCKET: path.join(dir, 'none.sock') },
      dir,
    );
    expect(ran.code).toBe(2); // the self-test's "collector did not start"; a real program runs on
    expect(ran.stderr).toMatch(
      /^streamscope profile \(pid \d+\): no server at .*none\.sock: cannot connect to .*none\.sock: No such file or directory; collection is off, the program runs on\n$/,
    );
  });

  it("says the rank its launcher gave the process (torchrun's RANK, MPI's, Slurm's) on it and its tracks", async () => {
    const ranksOf = async (env: Record<string, string>): Promise<unknown[]> => {
      const ran = await runCheck(
        `${records}exit\n`,
        { STREAMSCOPE_PROFILE_OUT: 'r.sstrace', ...env },
        dir,
      );
      expect(ran.code, ran.stderr).toBe(0);
      const trace = loadTrace(new Uint8Array(await readFile(path.join(dir, 'r.sstrace'))));
      expect(trace.tracks.length).toBeGreaterThan(2);
      return [trace.processes.map((p) => p.rank), [...new Set(trace.tracks.map((tr) => tr.rank))]];
    };
    expect(await ranksOf({ RANK: '3' })).toEqual([[3], [3]]);
    expect(await ranksOf({ OMPI_COMM_WORLD_RANK: '5' })).toEqual([[5], [5]]);
    expect(await ranksOf({ SLURM_PROCID: '0' })).toEqual([[0], [0]]);
    // The first set one decides, and a program's own RANK that is no rank is no rank.
    expect(await ranksOf({ RANK: '1', SLURM_PROCID: '7' })).toEqual([[1], [1]]);
    expect(await ranksOf({ RANK: 'leader', SLURM_PROCID: '7' })).toEqual([
      [undefined],
      [undefined],
    ]);
    expect(await ranksOf({ RANK: '-1' })).toEqual([[undefined], [undefined]]);
    expect(await ranksOf({})).toEqual([[undefined], [undefined]]);
  });

  it('leaves CUDA event records (device timestamps) off unless STREAMSCOPE_PROFILE_EVENTS=1 asks', async () => {
    // Issue #19: with them on, per_call's event case hung the program for good on an H100 after
    // 460k launches, copies and memsets (fixtures/runs/profile-h100.txt, run D); the default
    // must be the setting that cannot harm the program. The other kinds stay as they were.
    const activities = async (env: Record<string, string>): Promise<string> => {
      const ran = await runCheck(
        'activities\nexit\n',
        { STREAMSCOPE_PROFILE_OUT: 'a.sstrace', ...env },
        dir,
      );
      expect(ran.code).toBe(0);
      return ran.stdout.trim();
    };
    expect(await activities({})).toBe(
      'activities cudaEvents=0 nvtx=1 driverApi=1 everyApiCall=0 pendingQueries=1 cuptiMiB=64',
    );
    expect(
      await activities({ STREAMSCOPE_PROFILE_EVENTS: '1', STREAMSCOPE_PROFILE_CUPTI_MB: '8' }),
    ).toBe('activities cudaEvents=1 nvtx=1 driverApi=1 everyApiCall=0 pendingQueries=1 cuptiMiB=8');
  });

  it('names a bad collector setting and its range in one line, and collects nothing', async () => {
    for (const [name, value, why] of [
      ['STREAMSCOPE_PROFILE_BUFFER_KB', '2', 'must be an integer in [4, 16384]'],
      ['STREAMSCOPE_PROFILE_EVENTS', 'yes', 'must be 0 or 1'],
      ['STREAMSCOPE_PROFILE_CUPTI_MB', '0', 'must be an integer in [1, 65536]'],
      ['STREAMSCOPE_PROFILE_SYNC_QUERIES', '2', 'must be 0 or 1'],
      ['STREAMSCOPE_PROFILE_INLINE', 'on', 'must be 0 or 1'],
      [
        'STREAMSCOPE_PROFILE_OFF',
        'kernel,gpu',
        "names 'gpu', not one of all, runtime, driver, kernel, copy, memset, sync, event, nvtx, info",
      ],
    ] as const) {
      const ran = await runCheck(
        `${records}exit\n`,
        { STREAMSCOPE_PROFILE_OUT: 'never.sstrace', [name]: value },
        dir,
      );
      expect(ran.code).toBe(2);
      expect(ran.stderr.replace(/\(pid \d+\)/, '(pid N)')).toBe(
        `streamscope profile (pid N): ${name}='${value}' ${why}; collection is off, the program runs on\n`,
      );
    }
  });
});
