import { validateWorkload } from '@streamscope/workload';
import { describe, expect, it } from 'vitest';
import { cudaRunTrace, lowerPlan } from './lower-plan.ts';
import { NativeOpCode, nativeCollectivePartStride, nativeOpStride } from './native-plan.ts';

// Two GPUs with a communication stream and gradient buffers each; CUDA ordinals start at 2 so a
// plan-device/ordinal mix-up shows.
function spec(threads: { name: string; ops: unknown[] }[]): unknown {
  return {
    name: 'coll',
    devices: [{ name: 'gpu0' }, { name: 'gpu1' }],
    groups: [{ name: 'world', devices: ['gpu0', 'gpu1'] }],
    buffers: [
      { name: 'g0', kind: 'device', size: '4MiB', device: 'gpu0' },
      { name: 'g1', kind: 'device', size: '4MiB', device: 'gpu1' },
      { name: 'r0', kind: 'device', size: '4MiB', device: 'gpu0' },
      { name: 'r1', kind: 'device', size: '4MiB', device: 'gpu1' },
    ],
    streams: [
      { name: 'c0', device: 'gpu0' },
      { name: 'c1', device: 'gpu1' },
    ],
    threads,
  };
}

const devices = [2, 3].map((deviceId) => ({ deviceId, name: `GPU ${deviceId}` }));

function lower(input: unknown) {
  const result = validateWorkload(input);
  if (!result.ok) {
    throw new Error(JSON.stringify(result.errors));
  }
  const trace = cudaRunTrace(result.plan, 'test');
  return {
    plan: result.plan,
    trace,
    native: lowerPlan(result.plan, trace, { firstDevice: 2, devices, pid: 1 }),
  };
}

/** The thread's native ops as [code, stream, a0] rows. */
function ops(list: Float64Array): number[][] {
  const rows: number[][] = [];
  for (let i = 0; i < list.length; i += nativeOpStride) {
    rows.push([list[i]!, list[i + 1]!, list[i + 2]!]);
  }
  return rows;
}

function parts(values: Float64Array): number[][] {
  const rows: number[][] = [];
  for (let i = 0; i < values.length; i += nativeCollectivePartStride) {
    rows.push(Array.from(values.subarray(i, i + nativeCollectivePartStride)));
  }
  return rows;
}

describe('lowering collectives for the addon', () => {
  it('makes one communicator set per group on CUDA ordinals and one grouped op per collective', () => {
    const { plan, trace, native } = lower(
      spec([
        {
          name: 'main',
          ops: [
            {
              op: 'allReduce',
              group: 'world',
              streams: ['c0', 'c1'],
              send: ['g0', 'g1'],
              recv: ['r0', 'r1'],
              bytes: '4MiB',
              dtype: 'bfloat16',
            },
          ],
        },
      ]),
    );
    expect(native.comms).toEqual([{ devices: [2, 3] }]);
    const c0 = plan.streams.findIndex((s) => s.name === 'c0');
    const c1 = plan.streams.findIndex((s) => s.name === 'c1');
    const buffer = (name: string) => plan.buffers.findIndex((b) => b.name === name);
    expect(ops(native.threads[0]!.ops)).toEqual([[NativeOpCode.Collective, c0, 0]]);
    const c = native.collectives![0]!;
    // bfloat16 is ncclBfloat16 (9), sum ncclSum (0); count is in elements.
    expect({ comm: c.comm, count: c.count, dtype: c.dtype, reduce: c.reduce }).toEqual({
      comm: 0,
      count: (4 << 20) / 2,
      dtype: 9,
      reduce: 0,
    });
    expect(parts(c.parts)).toEqual([
      [0, c0, buffer('g0'), 0, buffer('r0'), 0, 0, -1],
      [0, c1, buffer('g1'), 0, buffer('r1'), 0, 1, -1],
    ]);
    // Event-timed runs cannot ask CUPTI for names: the label follows NCCL's kernel naming.
    const nameId = native.threads[0]!.ops[9]!;
    expect(trace.strings.get(nameId)).toBe('ncclDevKernel_AllReduce_Sum_bf16');
  });

  it('issues a same-thread send/recv pair together at its later half, on a comm over every device', () => {
    const { plan, native } = lower(
      spec([
        {
          name: 'main',
          ops: [
            { op: 'send', stream: 'c0', buffer: 'g0', bytes: '1MiB', peer: 'gpu1' },
            { op: 'recv', stream: 'c1', buffer: 'r1', bytes: '1MiB', peer: 'gpu0' },
          ],
        },
      ]),
    );
    const c1 = plan.streams.findIndex((s) => s.name === 'c1');
    const c0 = plan.streams.findIndex((s) => s.name === 'c0');
    expect(native.comms).toEqual([{ devices: [2, 3] }, { devices: [2, 3] }]);
    expect(ops(native.threads[0]!.ops)).toEqual([[NativeOpCode.Collective, c1, 0]]);
    const c = native.collectives![0]!;
    expect(c.comm).toBe(1);
    const g0 = plan.buffers.findIndex((b) => b.name === 'g0');
    const r1 = plan.buffers.findIndex((b) => b.name === 'r1');
    expect(parts(c.parts)).toEqual([
      [4, c0, g0, 0, -1, 0, 0, 1],
      [5, c1, -1, 0, r1, 0, 1, 0],
    ]);
  });

  it('issues the halves of a pair on their own threads separately', () => {
    const { native } = lower(
      spec([
        {
          name: 'a',
          ops: [{ op: 'send', stream: 'c0', buffer: 'g0', bytes: '1MiB', peer: 'gpu1' }],
        },
        {
          name: 'b',
          ops: [{ op: 'recv', stream: 'c1', buffer: 'r1', bytes: '1MiB', peer: 'gpu0' }],
        },
      ]),
    );
    expect(native.collectives).toHaveLength(2);
    expect(native.collectives!.map((c) => parts(c.parts).map((p) => p[0]))).toEqual([[4], [5]]);
  });

  it('refuses work on the earlier half’s stream between the halves of a same-thread pair, naming it', () => {
    expect(() =>
      lower(
        spec([
          {
            name: 'main',
            ops: [
              { op: 'send', stream: 'c0', buffer: 'g0', bytes: '1MiB', peer: 'gpu1' },
              { op: 'kernel', duration: '10us', stream: 'c0' },
              { op: 'recv', stream: 'c1', buffer: 'r1', bytes: '1MiB', peer: 'gpu0' },
            ],
          },
        ]),
      ),
    ).toThrow(/threads\[0\]\.ops\[1\].*issued on the send's stream between/);
  });
});
