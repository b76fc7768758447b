import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { profileFromCalibration } from '@streamscope/simulator';
import { FlowKind, OpFlag, OpKind, isCopyKind, loadTrace } from '@streamscope/trace';
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

  it('events-vs-device-sync: each stream wait holds its stream until the record it waited on', () => {
    const trace = loadTrace(new Uint8Array(readFileSync(`${dir}events-vs-device-sync.sstrace`)));
    const ops = trace.ops.columns();
    const flows = trace.flows.columns();
    const waits = Array.from({ length: trace.ops.count }, (_, i) => i).filter(
      (i) => ops.kind[i] === OpKind.StreamWait,
    );
    expect(waits.length).toBeGreaterThan(0);
    for (const wait of waits) {
      expect(trace.tracks[ops.track[wait]!]?.kind).toBe('gpu-stream');
      const from = Array.from({ length: trace.flows.count }, (_, f) => f).filter(
        (f) => flows.toOp[f] === wait && flows.kind[f] === FlowKind.EventRecordToWait,
      );
      expect(from).toHaveLength(1);
      const record = flows.fromOp[from[0]!]!;
      expect(ops.kind[record]).toBe(OpKind.EventRecord);
      expect(ops.refId[record]).toBe(ops.refId[wait]);
      // Released when the record completed, or at once when it already had.
      expect(ops.endNs[wait]).toBe(Math.max(ops.startNs[wait]!, ops.endNs[record]!));
      // Nothing more on the waiting stream starts before the wait let it go.
      for (const i of trace.ops.trackOrder(ops.track[wait]!)) {
        if (i !== wait && ops.kind[i] === OpKind.Kernel && ops.startNs[i]! >= ops.startNs[wait]!) {
          expect(ops.startNs[i]!).toBeGreaterThanOrEqual(ops.endNs[wait]!);
        }
      }
    }
  });

  it('calibration-h100.json loads as a simulator profile', () => {
    const json = JSON.parse(readFileSync(`${dir}calibration-h100.json`, 'utf8')) as unknown;
    const profile = profileFromCalibration(json);
    expect(profile.device.name).toBe('NVIDIA H100 80GB HBM3');
  });
});
