import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FlowKind, OpKind, Trace, TraceDecoder } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { defaultAddonPath } from './addon-path.ts';

// The addon's test surface: a real RecordSink driven by a script, no GPU (native/src/sink-script.cc).
interface SinkScriptAddon {
  sinkScript(steps: Float64Array): {
    bytes: Uint8Array;
    unresolvedWaits: number;
    unmatched: number;
  };
}

type Step =
  | { issue: { correlation: number; track: number; event?: number } }
  | { api: { startNs: number; endNs: number; track: number } }
  | { wait: { track: number; event: number; apiStartNs: number; onHost?: boolean } }
  | {
      gpu: {
        correlation: number;
        kind: number;
        startNs: number;
        endNs: number;
        deviceId?: number;
        nameId?: number;
      };
    }
  | { collective: { correlations: [number, number]; tracks: [number, number]; nameId: number } }
  | { drain: { final: boolean } };

const stride = 7;

function encode(steps: readonly Step[]): Float64Array {
  const out = new Float64Array(steps.length * stride);
  steps.forEach((step, i) => {
    let row: number[];
    if ('issue' in step) {
      const s = step.issue;
      row = [1, s.correlation, s.track, s.event ?? -1, 0];
    } else if ('api' in step) {
      row = [2, step.api.startNs, step.api.endNs, step.api.track, 0, 0];
    } else if ('wait' in step) {
      const s = step.wait;
      row = [3, s.track, 0, s.event, s.apiStartNs, s.onHost === true ? 1 : 0];
    } else if ('gpu' in step) {
      const s = step.gpu;
      row = [4, s.correlation, s.kind, s.startNs, s.endNs, s.deviceId ?? -1, s.nameId ?? 0];
    } else if ('collective' in step) {
      const s = step.collective;
      row = [6, ...s.correlations, ...s.tracks, s.nameId];
    } else {
      row = [5, step.drain.final ? 1 : 0];
    }
    out.set(row, i * stride);
  });
  return out;
}

function run(steps: readonly Step[]) {
  const addon = createRequire(import.meta.url)(defaultAddonPath) as SinkScriptAddon;
  const result = addon.sinkScript(encode(steps));
  const trace = new Trace();
  trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  for (const streamId of [1, 2]) {
    trace.addTrack({
      kind: 'gpu-stream',
      name: `s${streamId}`,
      pid: 1,
      deviceId: 0,
      contextId: 0,
      streamId,
      streamType: 'non-blocking',
      priority: 0,
    });
  }
  // Names the steps refer to by id (collective labels and CUPTI kernel names): ids 1..10.
  for (let i = 1; i <= 10; i++) {
    trace.strings.intern(`name ${i}`);
  }
  new TraceDecoder(trace).apply(result.bytes);
  const c = trace.ops.columns();
  const ops = Array.from({ length: trace.ops.count }, (_, i) => ({
    kind: c.kind[i],
    track: c.track[i],
    startNs: c.startNs[i],
    endNs: c.endNs[i],
  }));
  const f = trace.flows.columns();
  const flows = Array.from({ length: trace.flows.count }, (_, i) => [
    f.fromOp[i],
    f.toOp[i],
    f.kind[i],
  ]);
  const nameIds = Array.from(c.nameId.subarray(0, trace.ops.count));
  return {
    ops,
    flows,
    nameIds,
    unresolvedWaits: result.unresolvedWaits,
    unmatched: result.unmatched,
  };
}

const host = 0;
const streamA = 1;
const streamB = 2;

describe.skipIf(!existsSync(defaultAddonPath))('stream waits derived by the addon (no GPU)', () => {
  it('holds the waiting stream from its previous op until the record, with both flows', () => {
    const { ops, flows, unresolvedWaits } = run([
      { issue: { correlation: 1, track: streamA } },
      { issue: { correlation: 2, track: streamB } },
      { issue: { correlation: 3, track: streamB, event: 0 } },
      { api: { startNs: 100, endNs: 110, track: host } },
      { wait: { track: streamA, event: 0, apiStartNs: 100 } },
      { gpu: { correlation: 1, kind: OpKind.Kernel, startNs: 200, endNs: 500 } },
      { gpu: { correlation: 2, kind: OpKind.Kernel, startNs: 150, endNs: 800 } },
      { gpu: { correlation: 3, kind: OpKind.EventRecord, startNs: 800, endNs: 800 } },
      { drain: { final: false } },
    ]);
    // The API call first, then GPU records by start, then the derived wait.
    expect(ops).toEqual([
      { kind: OpKind.ApiCall, track: host, startNs: 100, endNs: 110 },
      { kind: OpKind.Kernel, track: streamB, startNs: 150, endNs: 800 },
      { kind: OpKind.Kernel, track: streamA, startNs: 200, endNs: 500 },
      { kind: OpKind.EventRecord, track: streamB, startNs: 800, endNs: 800 },
      { kind: OpKind.StreamWait, track: streamA, startNs: 500, endNs: 800 },
    ]);
    expect(flows).toEqual([
      [0, 4, FlowKind.ApiToGpu],
      [3, 4, FlowKind.EventRecordToWait],
    ]);
    expect(unresolvedWaits).toBe(0);
  });

  it('waits for records still in flight over later drains, and uses records already drained', () => {
    const { ops, flows } = run([
      { issue: { correlation: 3, track: streamB, event: 0 } },
      { gpu: { correlation: 3, kind: OpKind.EventRecord, startNs: 300, endNs: 300 } },
      { drain: { final: false } },
      // Stream A has done nothing yet and the record is long complete: a wait of no length,
      // placed when the call was made, linked to the record drained before it.
      { api: { startNs: 1000, endNs: 1010, track: host } },
      { wait: { track: streamA, event: 0, apiStartNs: 1000 } },
      // The next wait is on a record whose GPU time arrives only in a later drain.
      { issue: { correlation: 4, track: streamB, event: 0 } },
      { api: { startNs: 1100, endNs: 1110, track: host } },
      { wait: { track: streamA, event: 0, apiStartNs: 1100 } },
      { drain: { final: false } },
      { gpu: { correlation: 4, kind: OpKind.EventRecord, startNs: 5000, endNs: 5000 } },
      { drain: { final: false } },
    ]);
    expect(ops).toEqual([
      { kind: OpKind.EventRecord, track: streamB, startNs: 300, endNs: 300 },
      { kind: OpKind.ApiCall, track: host, startNs: 1000, endNs: 1010 },
      { kind: OpKind.ApiCall, track: host, startNs: 1100, endNs: 1110 },
      { kind: OpKind.StreamWait, track: streamA, startNs: 1000, endNs: 1000 },
      { kind: OpKind.EventRecord, track: streamB, startNs: 5000, endNs: 5000 },
      { kind: OpKind.StreamWait, track: streamA, startNs: 1100, endNs: 5000 },
    ]);
    expect(flows).toEqual([
      [1, 3, FlowKind.ApiToGpu],
      [0, 3, FlowKind.EventRecordToWait],
      [2, 5, FlowKind.ApiToGpu],
      [4, 5, FlowKind.EventRecordToWait],
    ]);
  });

  it('passes waits in a row in order: each starts when the one before it ends', () => {
    const { ops } = run([
      { issue: { correlation: 1, track: streamA } },
      { issue: { correlation: 2, track: streamB, event: 0 } },
      { issue: { correlation: 3, track: streamB, event: 1 } },
      { api: { startNs: 100, endNs: 110, track: host } },
      { wait: { track: streamA, event: 1, apiStartNs: 100 } },
      { api: { startNs: 120, endNs: 130, track: host } },
      { wait: { track: streamA, event: 0, apiStartNs: 120 } },
      // The second wait's record lands first; the first wait's only in the next drain.
      { gpu: { correlation: 1, kind: OpKind.Kernel, startNs: 140, endNs: 500 } },
      { gpu: { correlation: 2, kind: OpKind.EventRecord, startNs: 600, endNs: 600 } },
      { drain: { final: false } },
      { gpu: { correlation: 3, kind: OpKind.EventRecord, startNs: 900, endNs: 900 } },
      { drain: { final: false } },
    ]);
    const waits = ops.filter((o) => o.kind === OpKind.StreamWait);
    expect(waits).toEqual([
      { kind: OpKind.StreamWait, track: streamA, startNs: 500, endNs: 900 },
      { kind: OpKind.StreamWait, track: streamA, startNs: 900, endNs: 900 },
    ]);
  });

  it('links a record to the cudaEventSynchronize that waited on it, drawing no GPU op', () => {
    const { ops, flows } = run([
      { issue: { correlation: 3, track: streamB, event: 2 } },
      { api: { startNs: 100, endNs: 900, track: host } },
      { wait: { track: streamB, event: 2, apiStartNs: 100, onHost: true } },
      { gpu: { correlation: 3, kind: OpKind.EventRecord, startNs: 850, endNs: 850 } },
      { drain: { final: false } },
    ]);
    expect(ops.map((o) => o.kind)).toEqual([OpKind.ApiCall, OpKind.EventRecord]);
    expect(flows).toEqual([[1, 0, FlowKind.EventRecordToWait]]);
  });

  it('counts a wait whose record never arrives instead of drawing a guess', () => {
    const { ops, flows, unresolvedWaits } = run([
      { issue: { correlation: 3, track: streamB, event: 0 } },
      { api: { startNs: 100, endNs: 110, track: host } },
      { wait: { track: streamA, event: 0, apiStartNs: 100 } },
      { drain: { final: false } },
      { drain: { final: true } },
    ]);
    expect(ops.map((o) => o.kind)).toEqual([OpKind.ApiCall]);
    expect(flows).toEqual([]);
    expect(unresolvedWaits).toBe(1);
  });
});

describe.skipIf(!existsSync(defaultAddonPath))('a collective’s records (no GPU)', () => {
  it('puts each member’s kernel on its own device’s stream, with the name CUPTI gave it', () => {
    const label = 7;
    const cuptiName = 9;
    const { ops, flows, nameIds, unmatched } = run([
      // One ncclGroupEnd made two launches (one per device); stream A is on device 0, B on 1.
      { collective: { correlations: [11, 12], tracks: [streamA, streamB], nameId: label } },
      { api: { startNs: 100, endNs: 140, track: host } },
      {
        gpu: {
          correlation: 12,
          kind: OpKind.Kernel,
          startNs: 150,
          endNs: 400,
          deviceId: 0,
          nameId: cuptiName,
        },
      },
      {
        gpu: {
          correlation: 11,
          kind: OpKind.Kernel,
          startNs: 160,
          endNs: 410,
          deviceId: 1,
          nameId: cuptiName,
        },
      },
      { gpu: { correlation: 11, kind: OpKind.Kernel, startNs: 500, endNs: 600, deviceId: 1 } },
      { drain: { final: true } },
    ]);
    expect(ops).toEqual([
      { kind: OpKind.ApiCall, track: host, startNs: 100, endNs: 140 },
      { kind: OpKind.Kernel, track: streamA, startNs: 150, endNs: 400 },
      { kind: OpKind.Kernel, track: streamB, startNs: 160, endNs: 410 },
      { kind: OpKind.Kernel, track: streamB, startNs: 500, endNs: 600 },
    ]);
    // CUPTI's name when it gave one, else the plan's label.
    expect(nameIds.slice(1)).toEqual([cuptiName, cuptiName, label]);
    expect(flows).toEqual([]);
    expect(unmatched).toBe(0);
  });

  it('places 150k waits held behind a late record beside 150k ready ones (no drain quadratic in them)', () => {
    // per_call's event case at scale: stream A waits 150k times on event 0, whose record is late;
    // stream B waits as often on event 1, already recorded. A drain that listed a held track once
    // per held wait scanned that list for every ready wait: 150k * 150k / 2 = 1.1e10 steps.
    const pairs = 150_000;
    const steps: Step[] = [
      { issue: { correlation: 1, track: streamA, event: 0 } },
      { issue: { correlation: 2, track: streamA, event: 1 } },
      { gpu: { correlation: 2, kind: OpKind.EventRecord, startNs: 50, endNs: 50 } },
    ];
    for (let i = 0; i < pairs; i++) {
      const t = 100 + 20 * i;
      steps.push({ api: { startNs: t, endNs: t + 5, track: host } });
      steps.push({ wait: { track: streamA, event: 0, apiStartNs: t } });
      steps.push({ api: { startNs: t + 10, endNs: t + 15, track: host } });
      steps.push({ wait: { track: streamB, event: 1, apiStartNs: t + 10 } });
    }
    steps.push({ drain: { final: false } });
    const lateNs = 100 + 20 * pairs;
    steps.push({
      gpu: { correlation: 1, kind: OpKind.EventRecord, startNs: lateNs, endNs: lateNs },
    });
    steps.push({ drain: { final: true } });
    const { ops, flows, unresolvedWaits } = run(steps);
    // First drain: the API calls, event 1's record, then stream B's waits; the last drain:
    // event 0's record, then stream A's waits.
    expect(ops.length).toBe(4 * pairs + 2);
    const record1 = 2 * pairs;
    const record0 = 3 * pairs + 1;
    expect(ops[record1]).toMatchObject({ kind: OpKind.EventRecord, startNs: 50 });
    expect(ops[record0]).toMatchObject({ kind: OpKind.EventRecord, startNs: lateNs });
    const waitsB = ops.slice(record1 + 1, record0);
    const waitsA = ops.slice(record0 + 1);
    expect(waitsB.every((o) => o.kind === OpKind.StreamWait && o.track === streamB)).toBe(true);
    expect(waitsA.every((o) => o.kind === OpKind.StreamWait && o.endNs === lateNs)).toBe(true);
    const linkedTo = (record: number) =>
      flows.filter((f) => f[0] === record && f[2] === FlowKind.EventRecordToWait).length;
    expect([linkedTo(record1), linkedTo(record0)]).toEqual([pairs, pairs]);
    expect(unresolvedWaits).toBe(0);
  });
});
