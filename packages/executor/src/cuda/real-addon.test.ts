import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FlowKind, OpFlag, OpKind, Trace, TraceDecoder, noRef } from '@streamscope/trace';
import { buildPreset } from '@streamscope/workload';
import { describe, expect, it } from 'vitest';
import { defaultAddonPath } from './addon-path.ts';
import { CudaBackend } from './cuda-backend.ts';

interface EncodeOnly {
  encodeBatches(input: {
    firstStringId: number;
    strings: readonly string[];
    firstOp: number;
    ops: Float64Array;
    firstFlow: number;
    flows: Float64Array;
  }): Uint8Array;
}

// Built by `pnpm install` wherever nvcc exists (CI included); skipped only where it could not be.
const built = existsSync(defaultAddonPath);

describe.skipIf(!built)('the built addon (no GPU needed)', () => {
  it('encodes batches in C++ that TraceDecoder reads back exactly', () => {
    const addon = createRequire(import.meta.url)(defaultAddonPath) as EncodeOnly;
    const trace = new Trace();
    trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
    trace.addTrack({
      kind: 'gpu-stream',
      name: 's0',
      pid: 1,
      deviceId: 0,
      contextId: 0,
      streamId: 7,
      streamType: 'non-blocking',
      priority: -1,
    });
    trace.launches.intern({
      gridX: 1,
      gridY: 1,
      gridZ: 1,
      blockX: 32,
      blockY: 1,
      blockZ: 1,
      sharedMemBytes: 0,
      registersPerThread: 0,
    });
    const kernelName = trace.strings.intern('spin');
    // startNs, endNs, track, kind, nameId, bytes, memKinds, correlationId, refId, flags
    const ops = new Float64Array([
      ...[1000, 5000, 0, OpKind.ApiCall, 2, 0, 0, 77, -1, 0],
      ...[900, 1200, 0, OpKind.ApiCall, 3, 0, 0, 78, -1, OpFlag.Sync],
      ...[6000, 2_000_000_123, 1, OpKind.Kernel, kernelName, 0, 0, 77, 0, 0],
      ...[7000, 9000, 1, OpKind.CopyHtoD, kernelName, 3 * 2 ** 33, 0x32, 78, -1, OpFlag.InGraph],
    ]);
    const bytes = addon.encodeBatches({
      firstStringId: trace.strings.count,
      strings: ['cudaLaunchKernel', 'cudaMemcpy ✓'],
      firstOp: 0,
      ops,
      firstFlow: 0,
      flows: new Float64Array([0, 2, FlowKind.ApiToGpu, 1, 3, FlowKind.ApiToGpu]),
    });
    const result = new TraceDecoder(trace).apply(bytes);
    expect(result).toEqual({ batches: 3, opsAdded: 4 });
    expect(trace.strings.get(2)).toBe('cudaLaunchKernel');
    expect(trace.strings.get(3)).toBe('cudaMemcpy ✓');
    const c = trace.ops.columns();
    expect(Array.from(c.startNs)).toEqual([1000, 900, 6000, 7000]);
    expect(Array.from(c.endNs)).toEqual([5000, 1200, 2_000_000_123, 9000]);
    expect(Array.from(c.track)).toEqual([0, 0, 1, 1]);
    expect(Array.from(c.kind)).toEqual([
      OpKind.ApiCall,
      OpKind.ApiCall,
      OpKind.Kernel,
      OpKind.CopyHtoD,
    ]);
    expect(Array.from(c.correlationId)).toEqual([77, 78, 77, 78]);
    expect(Array.from(c.refId)).toEqual([noRef, noRef, 0, noRef]);
    expect(Array.from(c.flags)).toEqual([0, OpFlag.Sync, 0, OpFlag.InGraph]);
    expect(c.bytes[3]).toBe(3 * 2 ** 33);
    expect(c.memKinds[3]).toBe(0x32);
    const flows = trace.flows.columns();
    expect(Array.from(flows.fromOp)).toEqual([0, 1]);
    expect(Array.from(flows.toOp)).toEqual([2, 3]);
  });

  it('loads in the executor child; on a machine without a GPU the probe says exactly why', async () => {
    const backend = new CudaBackend({ addonPath: defaultAddonPath });
    const probe = await backend.probe();
    expect(probe.addon.loaded).toBe(true);
    const status = await backend.status();
    if (probe.cuda?.ok === true) {
      expect(status.available).toBe(true);
      return;
    }
    expect(status.available).toBe(false);
    expect(status.reason).toMatch(
      /no usable CUDA device: cudaGetDeviceCount: cudaError\w+ \(\d+\)/,
    );
    const run = backend.start({
      workload: buildPreset('pipeline'),
      timeLimitMs: 30_000,
      pace: 'fast',
    });
    const end = await run.done;
    expect(end.status === 'failed' ? end.reason : '').toBe(status.reason);
  });
});
