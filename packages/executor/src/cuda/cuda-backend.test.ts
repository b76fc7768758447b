import { fileURLToPath } from 'node:url';
import {
  BatchKind,
  ByteWriter,
  OpKind,
  batchHeaderBytes,
  batchMagic,
  codecVersion,
} from '@streamscope/trace';
import process from 'node:process';
import type { Plan } from '@streamscope/workload';
import { buildPreset, validateWorkload } from '@streamscope/workload';
import { describe, expect, it } from 'vitest';
import { CudaBackend } from './cuda-backend.ts';

const fakeChild = fileURLToPath(new URL('./test-fixtures/fake-child.mjs', import.meta.url));

/** One ops batch: an API call on track 0 (the first host thread), 500..600 ns. */
function oneApiCallBatch(): string {
  const w = new ByteWriter();
  w.u32(batchMagic);
  w.u8(codecVersion);
  w.u8(BatchKind.Ops);
  w.u16(0);
  w.u32(1);
  w.u32(0);
  const payloadStart = w.length;
  w.varint(0); // first op index
  w.u8(OpKind.ApiCall);
  w.u8(0); // no optional fields
  w.varint(0); // track
  w.zigzag(500); // start
  w.varint(100); // duration
  w.varint(0); // name
  w.patchU32(12, w.length - payloadStart);
  expect(payloadStart).toBe(batchHeaderBytes);
  return Buffer.from(w.finish()).toString('base64');
}

function backend(mode: string): CudaBackend {
  return new CudaBackend({
    addonPath: JSON.stringify({ mode, batch: oneApiCallBatch() }),
    childScript: fakeChild,
    cancelGraceMs: 300,
  });
}

const workload = buildPreset('pipeline', { chunks: 2 });

function validPlan(): Plan {
  const result = validateWorkload(workload);
  if (!result.ok) {
    throw new Error('pipeline preset does not validate');
  }
  return result.plan;
}

describe('the cuda backend with a stand-in executor process', () => {
  it('builds the trace structure, applies record batches and finishes', async () => {
    const run = backend('finish').start({ workload, timeLimitMs: 10_000, pace: 'fast' });
    let updates = 0;
    run.onUpdate(() => updates++);
    await expect(run.done).resolves.toEqual({ status: 'finished' });
    expect(run.trace.ops.count).toBe(1);
    expect(run.trace.meta.originNs).toBe('1000000');
    expect(run.trace.meta.sourceFormat).toBe('streamscope-cuda');
    expect(run.trace.devices[0]?.name).toBe('Fake GPU');
    expect(run.trace.tracks.some((t) => t.kind === 'gpu-stream')).toBe(true);
    expect(updates).toBeGreaterThan(0);
  });

  it("puts what the native sink lost at its bounds in the trace's warnings", async () => {
    const run = backend('lossy').start({ workload, timeLimitMs: 10_000, pace: 'fast' });
    await expect(run.done).resolves.toEqual({ status: 'finished' });
    expect(run.trace.meta.warnings).toEqual([
      '3 GPU records could not be matched to an op; ' +
        '2 stream waits have no GPU time (their event records never arrived); ' +
        "5 names past the executor's bound were replaced",
    ]);
  });

  it('stops a run that hangs past its time limit, says so, and keeps what arrived', async () => {
    const run = backend('hang').start({ workload, timeLimitMs: 2000, pace: 'fast' });
    const end = await run.done;
    expect(end.status).toBe('failed');
    expect(end.status === 'failed' ? end.reason : '').toMatch(/time limit of 2000 ms exceeded/);
    expect(run.trace.ops.count).toBe(1);
  });

  it('reports a child that dies mid-run and keeps every record already received', async () => {
    const run = backend('crash').start({ workload, timeLimitMs: 10_000, pace: 'fast' });
    const end = await run.done;
    expect(end).toEqual({
      status: 'failed',
      reason: expect.stringMatching(/ended unexpectedly \(killed by SIGSEGV\)/) as unknown,
    });
    expect(run.trace.ops.count).toBe(1);
  });

  it('reports a child killed mid-run from outside, keeping what arrived', async () => {
    const run = backend('stream').startPlan(validPlan(), { timeLimitMs: 10_000 });
    run.onUpdate(() => {
      if (run.trace.ops.count > 0) {
        process.kill(run.executorPid, 'SIGKILL');
      }
    });
    const end = await run.done;
    expect(end.status === 'failed' ? end.reason : '').toMatch(/killed by SIGKILL/);
    expect(run.trace.ops.count).toBe(1);
  });

  it('cancels a run', async () => {
    const run = backend('cancellable').start({ workload, timeLimitMs: 10_000, pace: 'fast' });
    run.onUpdate(() => {
      if (run.trace.ops.count > 0) {
        run.cancel();
      }
    });
    await expect(run.done).resolves.toEqual({ status: 'cancelled' });
  });

  it('says why it is unavailable without a GPU, and a run there fails with that reason', async () => {
    const b = backend('no-gpu');
    const status = await b.status();
    expect(status.available).toBe(false);
    expect(status.reason).toMatch(/cudaErrorInsufficientDriver/);
    const end = await b.start({ workload, timeLimitMs: 10_000, pace: 'fast' }).done;
    expect(end.status === 'failed' ? end.reason : '').toMatch(/cudaErrorInsufficientDriver/);
  });

  it('rejects an invalid workload synchronously, naming the place', () => {
    expect(() =>
      backend('finish').start({ workload: { threads: 3 }, timeLimitMs: 1000, pace: 'fast' }),
    ).toThrow(/invalid workload: \$/);
  });
});
