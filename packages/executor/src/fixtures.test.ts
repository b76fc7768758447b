import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { profileFromCalibration } from '@streamscope/simulator';
import { OpFlag, OpKind, isCopyKind, loadTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { ReplayBackend } from './replay-backend.ts';

const dir = fileURLToPath(new URL('../../../fixtures/runs/', import.meta.url));
const traces = readdirSync(dir).filter((f) => f.endsWith('.sstrace'));

describe('recorded GPU runs (fixtures/runs)', () => {
  it('hold a trace for every preset run on the GPU', () => {
    expect(traces).toEqual(
      expect.arrayContaining(['pipeline.sstrace', 'graphs.sstrace', 'two-gpu-peer.sstrace']),
    );
  });

  it.each(traces)(
    '%s: loads, and on every stream no GPU op starts before the previous one ended',
    (file) => {
      const trace = loadTrace(new Uint8Array(readFileSync(`${dir}${file}`)));
      expect(['cupti', 'events']).toContain(trace.meta.timingMethod);
      expect(trace.meta.sourceFormat).toBe('streamscope-cuda');
      const ops = trace.ops.columns();
      let gpuOps = 0;
      for (let track = 0; track < trace.tracks.length; track++) {
        const info = trace.tracks[track]!;
        if (info.kind !== 'gpu-stream') {
          continue;
        }
        const work = Array.from(trace.ops.trackOrder(track)).filter(
          (i) =>
            ops.kind[i] === OpKind.Kernel ||
            isCopyKind(ops.kind[i]!) ||
            ops.kind[i] === OpKind.Memset,
        );
        gpuOps += work.length;
        for (let k = 1; k < work.length; k++) {
          // Stream order: CUPTI's start of op k is at or after the end of op k-1 (1 ns rounding).
          expect(ops.startNs[work[k]!]!).toBeGreaterThanOrEqual(ops.endNs[work[k - 1]!]! - 1);
        }
        if (trace.meta.timingMethod === 'events') {
          expect(work.every((i) => (ops.flags[i]! & OpFlag.EventTimed) !== 0)).toBe(true);
        }
      }
      expect(gpuOps).toBeGreaterThan(0);
    },
  );

  it('replay every recorded run to the end', async () => {
    for (const file of traces) {
      const source = loadTrace(new Uint8Array(readFileSync(`${dir}${file}`)));
      const run = new ReplayBackend().start({
        workload: null,
        replayOf: source,
        timeLimitMs: 10_000,
        pace: 'fast',
      });
      await expect(run.done).resolves.toEqual({ status: 'finished' });
      expect(run.trace.ops.count).toBe(source.ops.count);
      expect(run.trace.flows.count).toBe(source.flows.count);
    }
  });

  it('calibration-h100.json loads as a simulator profile', () => {
    const json = JSON.parse(readFileSync(`${dir}calibration-h100.json`, 'utf8')) as unknown;
    const profile = profileFromCalibration(json);
    expect(profile.device.name).toBe('NVIDIA H100 80GB HBM3');
  });
});
