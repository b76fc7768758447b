import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpKind, loadTrace } from '@streamscope/trace';
import type { TraceEntry } from '../api-types.ts';
import { LiveClient } from '../test-support/live-client.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { FakeProcess, TestSender, launcherHello } from './test-sender.ts';

let t: TestServer;

const profileTiming = { reconnectGraceMs: 300, exitGraceMs: 300, stopGraceMs: 3000 };

beforeEach(async () => {
  t = await startTestServer({ profileTiming });
});

afterEach(async () => {
  await t.close();
});

function socketPath(): string {
  const path = t.server.profileSocket;
  expect(path, 'the server listens for profiled programs').toBeDefined();
  return path!;
}

async function launch(title = 'python train.py'): Promise<{ launcher: TestSender; runId: string }> {
  const launcher = await TestSender.connect(socketPath());
  launcher.sendJson(launcherHello(title));
  const welcome = await launcher.untilMessage('welcome');
  return { launcher, runId: welcome.runId };
}

async function join(runId: string, process: FakeProcess): Promise<TestSender> {
  const sender = await TestSender.connect(socketPath());
  sender.sendJson(process.hello(runId));
  await sender.untilMessage('welcome');
  return sender;
}

async function entry(id: string): Promise<TraceEntry> {
  return (await t.api('GET', `/api/traces/${id}`, '/api/traces/{id}')).body as TraceEntry;
}

async function until(predicate: () => Promise<boolean>): Promise<void> {
  while (!(await predicate())) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function ended(id: string): Promise<TraceEntry> {
  let e = await entry(id);
  await until(async () => {
    e = await entry(id);
    return e.status !== 'running' && e.status !== 'queued' && e.fileBytes !== undefined;
  });
  return e;
}

async function storedTrace(id: string) {
  const response = await fetch(`${t.base}/api/traces/${id}/data`);
  return loadTrace(new Uint8Array(await response.arrayBuffer()));
}

describe('profiled programs (the collector channel)', () => {
  it('listens on a Unix socket in the data folder that only this user can open', () => {
    expect(socketPath().startsWith(t.dataDir)).toBe(true);
    expect(statSync(socketPath()).mode & 0o777).toBe(0o600);
  });

  it('lists a launched program as "<cmd> — live", merges two processes grouped by pid, and stores it finished', async () => {
    const { launcher, runId } = await launch();
    const listed = await entry(runId);
    expect(listed).toMatchObject({
      title: 'python train.py — live',
      status: 'running',
      backend: 'cuda',
    });
    const watcher = await LiveClient.connect(t.liveUrl);
    watcher.send({ type: 'subscribe', runId });

    const a = new FakeProcess(4242);
    const b = new FakeProcess(4343, 1_000_500_000n); // joined 0.5 ms after the run's start
    const senderA = await join(runId, a);
    const senderB = await join(runId, b);
    a.addKernels(3, 'gemm');
    a.addRange('step 0', 0, 20_000);
    let frame = a.nextFrame();
    senderA.sendFrame(runId, frame.seq, frame.batches);
    await senderA.until(() => senderA.messages.some((m) => m.type === 'ack' && m.seq === 1));
    b.addKernels(2, 'softmax');
    frame = b.nextFrame();
    senderB.sendFrame(runId, frame.seq, frame.batches);
    // The dashboard's trace fills in while the program runs.
    await watcher.until((c) => c.trace.ops.count === 10);

    a.addKernels(1, 'gemm');
    frame = a.lastFrame();
    senderA.sendFrame(runId, frame.seq, frame.batches);
    senderA.sendJson({ type: 'bye', ops: 8, dropped: 0 });
    frame = b.lastFrame();
    senderB.sendFrame(runId, frame.seq, frame.batches);
    senderB.sendJson({ type: 'bye', ops: 4, cuptiDropped: 3 });
    launcher.sendJson({ type: 'exit', code: 0, signal: null });

    const done = await launcher.untilMessage('ended');
    expect(done).toMatchObject({ status: 'finished', opCount: 12, processes: 2 });
    const stored = await ended(runId);
    expect(stored).toMatchObject({ status: 'finished', title: 'python train.py', opCount: 12 });
    const trace = await storedTrace(runId);
    expect(trace.processes.map((p) => p.pid)).toEqual([4242, 4343]);
    expect(trace.tracks.map((tr) => tr.pid)).toEqual([4242, 4242, 4343, 4343]);
    expect(trace.devices).toHaveLength(1); // one GPU, seen by both processes
    const ops = trace.ops.columns();
    const names = Array.from(ops.nameId.subarray(0, ops.count), (id) => trace.name(id));
    expect(names.filter((n) => n === 'gemm')).toHaveLength(4);
    expect(names.filter((n) => n === 'softmax')).toHaveLength(2);
    // b's first kernel starts at 2000 ns in its clock, whose origin is 0.5 ms after the run's.
    const firstSoftmax = names.indexOf('softmax');
    expect(ops.startNs[firstSoftmax]).toBe(500_000 + 2000);
    expect(ops.kind[firstSoftmax]).toBe(OpKind.Kernel);
    // Flows join each API call to its kernel across the remapped op indices.
    expect(trace.flows.count).toBe(6);
    const flows = trace.flows.columns();
    for (let i = 0; i < flows.count; i++) {
      expect(ops.kind[flows.fromOp[i]!]).toBe(OpKind.ApiCall);
      expect(ops.kind[flows.toOp[i]!]).toBe(OpKind.Kernel);
      expect(ops.track[flows.toOp[i]!]! - ops.track[flows.fromOp[i]!]!).toBe(1);
    }
    expect(trace.ranges.count).toBe(1);
    expect(trace.meta.warnings).toContain(
      'pid 4343: 3 records dropped by CUPTI (its buffers were full)',
    );
    watcher.socket.close();
  });

  it('resumes a process whose connection dropped at the frame after the last one applied', async () => {
    const { launcher, runId } = await launch();
    const p = new FakeProcess(5000);
    const first = await join(runId, p);
    p.addKernels(2);
    let frame = p.nextFrame();
    first.sendFrame(runId, frame.seq, frame.batches);
    await first.until(() => first.messages.some((m) => m.type === 'ack'));
    first.socket.terminate();

    const again = await TestSender.connect(socketPath());
    again.sendJson(p.hello(runId));
    expect(await again.untilMessage('welcome')).toEqual({ type: 'welcome', runId, nextSeq: 1 });
    p.addKernels(1);
    frame = p.nextFrame();
    again.sendFrame(runId, frame.seq, frame.batches);
    await again.until(() => again.messages.some((m) => m.type === 'ack' && m.seq === 2));
    // A frame past the next one means frames were lost: refused, never applied out of order.
    again.sendFrame(runId, 5, p.nextFrame().batches);
    await again.untilClosed();
    expect(again.messages.at(-1)).toEqual({
      type: 'refused',
      reason: 'frame 5 from pid 5000 but 2 was expected: frames are missing',
    });
    launcher.sendJson({ type: 'exit', code: 0, signal: null });
    const stored = await ended(runId);
    expect(stored.opCount).toBe(6);
  });

  it("sends the launcher a stop when the dashboard's Stop cancels the run, and keeps what arrived", async () => {
    const { launcher, runId } = await launch();
    const p = new FakeProcess(6000);
    const sender = await join(runId, p);
    p.addKernels(4);
    const frame = p.nextFrame();
    sender.sendFrame(runId, frame.seq, frame.batches);
    await sender.until(() => sender.messages.some((m) => m.type === 'ack'));
    const cancel = await t.api('POST', `/api/runs/${runId}/cancel`, '/api/runs/{id}/cancel');
    expect(cancel.status).toBe(202);
    await launcher.untilMessage('stop');
    // The program handles its SIGINT and exits; its process says bye first.
    sender.sendJson({ type: 'bye', ops: 8 });
    launcher.sendJson({ type: 'exit', code: 130, signal: null });
    expect(await launcher.untilMessage('ended')).toMatchObject({ status: 'cancelled', opCount: 8 });
    expect(await ended(runId)).toMatchObject({ status: 'cancelled', opCount: 8 });
  });

  it('fails a program that never initialized CUDA with exactly that reason', async () => {
    const { launcher, runId } = await launch('true');
    launcher.sendJson({ type: 'exit', code: 0, signal: null });
    const done = await launcher.untilMessage('ended');
    expect(done.reason).toBe(
      'no CUDA activity was recorded: the program exited with status 0 and no process of it initialized CUDA',
    );
    expect(await ended(runId)).toMatchObject({ status: 'failed', reason: done.reason });
  });

  it('says which process could not collect when CUPTI was taken by another profiler', async () => {
    const { launcher, runId } = await launch();
    const p = new FakeProcess(7000);
    const sender = await join(runId, p);
    const frame = p.lastFrame();
    sender.sendFrame(runId, frame.seq, frame.batches);
    sender.sendJson({
      type: 'bye',
      error:
        'CUPTI unavailable: cuptiSubscribe failed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39)',
    });
    launcher.sendJson({ type: 'exit', code: 0, signal: null });
    const done = await launcher.untilMessage('ended');
    expect(done.reason).toBe(
      'no CUDA activity was recorded: pid 7000: CUPTI unavailable: cuptiSubscribe failed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39)',
    );
  });

  it('keeps what arrived from a program killed mid-run and says it was killed', async () => {
    const { launcher, runId } = await launch();
    const p = new FakeProcess(8000);
    const sender = await join(runId, p);
    p.addKernels(5);
    const frame = p.nextFrame();
    sender.sendFrame(runId, frame.seq, frame.batches);
    await sender.until(() => sender.messages.some((m) => m.type === 'ack'));
    sender.socket.terminate(); // SIGKILL: no bye
    launcher.sendJson({ type: 'exit', code: null, signal: 'SIGKILL' });
    const stored = await ended(runId);
    expect(stored.status).toBe('failed');
    expect(stored.reason).toMatch(
      /^the program was killed by SIGKILL; what arrived is kept \(10 ops over /,
    );
    expect(stored.warnings).toContain(
      'pid 8000 ended without closing its collector (killed, or left through _exit); its last records may be missing',
    );
  });

  it('starts a run of its own for a process with no launcher and ends it when the process leaves', async () => {
    const p = new FakeProcess(9000);
    const sender = await TestSender.connect(socketPath());
    sender.sendJson({ ...p.hello(), title: 'train.py' });
    const welcome = await sender.untilMessage('welcome');
    expect(await entry(welcome.runId)).toMatchObject({
      title: 'train.py — live',
      status: 'running',
    });
    p.addKernels(1);
    const frame = p.lastFrame();
    sender.sendFrame(welcome.runId, frame.seq, frame.batches);
    sender.sendJson({ type: 'bye', ops: 2 });
    expect(await ended(welcome.runId)).toMatchObject({
      status: 'finished',
      title: 'train.py',
      opCount: 2,
    });
  });

  it('refuses bad messages with the place: a hello field, a frame before hello, corrupt records', async () => {
    const bad = await TestSender.connect(socketPath());
    bad.sendJson({ ...new FakeProcess(1).hello(), pid: -3 });
    await bad.untilClosed();
    expect(bad.messages).toEqual([
      { type: 'refused', reason: 'message 1: $.pid must be a process id' },
    ]);

    const early = await TestSender.connect(socketPath());
    early.sendFrame('x', 0, new Uint8Array(0));
    await early.untilClosed();
    expect(early.messages[0]).toEqual({
      type: 'refused',
      reason: 'message 1: a binary frame before a process hello',
    });

    const { launcher, runId } = await launch();
    const p = new FakeProcess(1234);
    const sender = await join(runId, p);
    p.addKernels(1);
    const frame = p.nextFrame();
    sender.sendFrame(runId, 0, frame.batches.subarray(0, frame.batches.length - 3));
    await sender.untilClosed();
    expect(sender.messages.find((m) => m.type === 'refused')).toEqual({
      type: 'refused',
      reason:
        'pid 1234 sent corrupt records in frame 0: batch 4 (flows): payload of 4 bytes runs past the end of the buffer (1 left) at byte 611: truncated',
    });
    launcher.sendJson({ type: 'exit', code: 0, signal: null });
    expect(await ended(runId)).toMatchObject({ status: 'failed' });

    const unknown = await TestSender.connect(socketPath());
    unknown.sendJson(new FakeProcess(2).hello('nosuchrun'));
    await unknown.untilClosed();
    expect(unknown.messages[0]).toEqual({
      type: 'refused',
      reason: "no run 'nosuchrun' on this server",
    });
  });

  it('ends a run with what arrived when the server stops, and refuses its processes after the restart', async () => {
    const { runId } = await launch();
    const p = new FakeProcess(3100);
    const sender = await join(runId, p);
    p.addKernels(2);
    const frame = p.nextFrame();
    sender.sendFrame(runId, frame.seq, frame.batches);
    await sender.until(() => sender.messages.some((m) => m.type === 'ack'));
    t = await t.restart();
    expect(await entry(runId)).toMatchObject({
      status: 'failed',
      reason: 'the server stopped while the program ran; what arrived is kept',
      opCount: 4,
    });
    const again = await TestSender.connect(socketPath());
    again.sendJson(p.hello(runId));
    await again.untilClosed();
    expect(again.messages[0]).toEqual({
      type: 'refused',
      reason: `run '${runId}' has ended (failed)`,
    });
  });
});

describe('profiled programs beyond this machine (the port, with its token)', () => {
  it('refuses a collector without the token and welcomes one that carries it', async () => {
    await t.close();
    t = await startTestServer({ profileTiming, token: 'profile-test-token-1234' });
    const ws = `ws://127.0.0.1:${t.server.port}`;
    await expect(TestSender.connect(ws)).rejects.toThrow('refused with HTTP 401');
    const launcher = await TestSender.connect(ws, 'profile-test-token-1234');
    launcher.sendJson(launcherHello('python remote.py'));
    const welcome = await launcher.untilMessage('welcome');
    expect(welcome.url).toBe(
      `http://127.0.0.1:${t.server.port}/?token=profile-test-token-1234#/trace/${welcome.runId}`,
    );
    launcher.sendJson({ type: 'exit', code: 0, signal: null });
    await launcher.untilMessage('ended');
  });
});
