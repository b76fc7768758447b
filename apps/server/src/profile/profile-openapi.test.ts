import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkProfileMessage } from '../test-support/openapi-check.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { FakeProcess, TestSender, launcherHello } from './test-sender.ts';

// The collector channel as openapi.yaml documents it: every message either side sends in a
// whole run (launch, join, frames and acks, Stop, bye, exit, ended) and a refusal match its
// ProfileCollectorMessage / ProfileServerMessage schema.

let t: TestServer;

beforeEach(async () => {
  t = await startTestServer({
    profileTiming: { reconnectGraceMs: 300, exitGraceMs: 300, stopGraceMs: 3000 },
  });
});

afterEach(async () => {
  await t.close();
});

describe('the collector channel in openapi.yaml', () => {
  it('documents every message of a run that is stopped from the dashboard', async () => {
    const socket = t.server.profileSocket!;
    const sent: unknown[] = [];
    const send = (to: TestSender, message: Record<string, unknown>): void => {
      sent.push(message);
      to.sendJson(message);
    };
    const launcher = await TestSender.connect(socket);
    send(launcher, launcherHello('python train.py'));
    const { runId, url } = await launcher.untilMessage('welcome');
    expect(url).toMatch(new RegExp(`#/trace/${runId}$`));
    const program = new FakeProcess(8100);
    const sender = await TestSender.connect(socket);
    send(sender, program.hello(runId));
    await sender.untilMessage('welcome');
    program.addKernels(3);
    const frame = program.nextFrame();
    sender.sendFrame(runId, frame.seq, frame.batches);
    await sender.until(() => sender.messages.some((m) => m.type === 'ack'));
    await t.api('POST', `/api/runs/${runId}/cancel`, '/api/runs/{id}/cancel');
    await launcher.untilMessage('stop');
    send(sender, { type: 'bye', ops: 6, dropped: 0, cuptiDropped: 0, incomplete: 0 });
    send(launcher, { type: 'exit', code: 130, signal: null });
    await launcher.untilMessage('ended');

    const refusedSender = await TestSender.connect(socket);
    refusedSender.sendJson(new FakeProcess(2).hello('nosuchrun'));
    await refusedSender.untilClosed();

    const received = [launcher, sender, refusedSender].flatMap((s) => s.messages);
    expect(new Set(received.map((m) => m.type))).toEqual(
      new Set(['welcome', 'ack', 'stop', 'ended', 'refused']),
    );
    for (const message of received) {
      checkProfileMessage('from-server', message);
    }
    for (const message of sent) {
      checkProfileMessage('from-collector', message);
    }
  });

  it('rejects messages the schemas do not describe', () => {
    expect(() => checkProfileMessage('from-server', { type: 'ack' })).toThrow(
      'ProfileServerMessage does not match openapi.yaml',
    );
    expect(() =>
      checkProfileMessage('from-collector', { ...launcherHello('x'), protocol: 2 }),
    ).toThrow('ProfileCollectorMessage does not match openapi.yaml');
  });
});
