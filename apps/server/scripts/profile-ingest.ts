// How fast the server takes in a profiled program's records (for `pnpm bench profile`): a real
// server on loopback, one launcher and one process on its collector socket (the test sender,
// src/profile/test-sender.ts), FRAMES frames of KERNELS kernels each (an API call, its kernel and
// the flow between them per kernel) encoded beforehand, sent with up to 8 frames unacknowledged.
// The clock runs from the first frame sent to the last frame's ack (the server acks a frame once
// it is decoded and merged into the run). Prints one JSON line: ops, bytes, ms.
//   node --import tsx apps/server/scripts/profile-ingest.ts [FRAMES] [KERNELS]
import process from 'node:process';
import { startTestServer } from '../src/test-support/test-server.ts';
import { FakeProcess, TestSender, launcherHello } from '../src/profile/test-sender.ts';

const frameCount = Number(process.argv[2] ?? '200');
const kernelsPerFrame = Number(process.argv[3] ?? '2500');
const window = 8;

const server = await startTestServer();
try {
  const socket = server.server.profileSocket;
  if (socket === undefined) {
    throw new Error('the server has no collector socket');
  }
  const launcher = await TestSender.connect(socket);
  launcher.sendJson(launcherHello('ingest bench'));
  const { runId } = await launcher.untilMessage('welcome');
  const program = new FakeProcess(4242);
  const sender = await TestSender.connect(socket);
  sender.sendJson(program.hello(runId));
  await sender.untilMessage('welcome');

  const frames: { seq: number; batches: Uint8Array }[] = [];
  let bytes = 0;
  for (let i = 0; i < frameCount; i++) {
    program.addKernels(kernelsPerFrame);
    const frame = i === frameCount - 1 ? program.lastFrame() : program.nextFrame();
    frames.push(frame);
    bytes += frame.batches.byteLength;
  }
  let acked = 0;
  const ackedUpTo = (): number => {
    for (let i = sender.messages.length - 1; i >= 0; i--) {
      const m = sender.messages[i]!;
      if (m.type === 'ack') {
        return m.seq;
      }
    }
    return 0;
  };
  const t0 = performance.now();
  for (const frame of frames) {
    if (frame.seq - acked >= window) {
      await sender.until(() => ackedUpTo() > frame.seq - window);
      acked = ackedUpTo();
    }
    sender.sendFrame(runId, frame.seq, frame.batches);
  }
  await sender.until(() => ackedUpTo() === frameCount);
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ ops: program.trace.ops.count, bytes, ms })}\n`);
  sender.sendJson({ type: 'bye', ops: program.trace.ops.count });
  launcher.sendJson({ type: 'exit', code: 0, signal: null });
  await launcher.untilMessage('ended');
  sender.close();
  launcher.close();
} finally {
  await server.close();
}
