// A profiled program without a GPU, for e2e tests and screenshots: it speaks the collector
// channel as the `profile` CLI (launcher) and one collector process would, with records made by
// the codec (src/profile/test-sender.ts), against a running server.
//   node --import tsx apps/server/scripts/fake-profile.ts ws://127.0.0.1:PORT [FRAMES] [INTERVAL_MS] [hold]
// Prints `{"runId", "url"}` once the run is registered, then sends FRAMES frames of 20 kernels
// and an NVTX range each, INTERVAL_MS apart. Without `hold` the program then ends (exit 0); with
// it, it runs on until the dashboard's Stop, which it answers as a program that caught SIGINT
// (a last frame, bye, exit status 130). Prints the run's end (`ended`) and exits.
import process from 'node:process';
import { FakeProcess, TestSender, launcherHello } from '../src/profile/test-sender.ts';

const [target = 'ws://127.0.0.1:5178', framesArg = '10', intervalArg = '100', mode = ''] =
  process.argv.slice(2);
const frames = Number(framesArg);
const intervalMs = Number(intervalArg);
if (!Number.isInteger(frames) || frames < 1 || !Number.isFinite(intervalMs) || intervalMs < 0) {
  process.stderr.write('fake-profile: FRAMES must be a positive integer and INTERVAL_MS >= 0\n');
  process.exit(2);
}
const kernelsPerFrame = 20;
const originNs = BigInt(Date.now()) * 1_000_000n;

const launcher = await TestSender.connect(target);
launcher.sendJson(launcherHello('python train.py', originNs));
const welcome = await launcher.untilMessage('welcome');
process.stdout.write(`${JSON.stringify({ runId: welcome.runId, url: welcome.url ?? null })}\n`);

const program = new FakeProcess(process.pid, originNs);
const sender = await TestSender.connect(target);
sender.sendJson(program.hello(welcome.runId));
await sender.untilMessage('welcome');

let stopped = false;
const stop = launcher.untilMessage('stop').then(() => {
  stopped = true;
});
const stepNs = kernelsPerFrame * 6000;
for (let i = 0; i < frames && !stopped; i++) {
  program.addRange(`step ${i}`, 1000 + i * stepNs, (i + 1) * stepNs);
  program.addKernels(kernelsPerFrame, i % 2 === 0 ? 'gemm' : 'softmax');
  const frame = program.nextFrame();
  sender.sendFrame(welcome.runId, frame.seq, frame.batches);
  await sender.until(() =>
    sender.messages.some((m) => m.type === 'ack' && m.seq === frame.seq + 1),
  );
  if (intervalMs > 0) {
    await Promise.race([stop, new Promise((resolve) => setTimeout(resolve, intervalMs))]);
  }
}
if (mode === 'hold') {
  await stop;
}
const last = program.lastFrame();
sender.sendFrame(welcome.runId, last.seq, last.batches);
sender.sendJson({ type: 'bye', ops: program.trace.ops.count });
launcher.sendJson({ type: 'exit', code: stopped ? 130 : 0, signal: null });
const ended = await launcher.untilMessage('ended');
process.stdout.write(`${JSON.stringify(ended)}\n`);
sender.close();
launcher.close();
