import { describe, expect, it } from 'vitest';
import type { PlanCollective, PlanP2p } from './plan.ts';
import type { ValidationResult } from './validate.ts';
import { validateWorkload } from './validate.ts';

// Two GPUs, a communication stream and 4 MiB gradient buffers on each.
function spec(ops: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'coll',
    devices: [{ name: 'gpu0' }, { name: 'gpu1' }],
    groups: [{ name: 'world', devices: ['gpu0', 'gpu1'] }],
    buffers: [
      { name: 'g0', kind: 'device', size: '4MiB', device: 'gpu0' },
      { name: 'g1', kind: 'device', size: '4MiB', device: 'gpu1' },
      { name: 'big0', kind: 'device', size: '8MiB', device: 'gpu0' },
      { name: 'big1', kind: 'device', size: '8MiB', device: 'gpu1' },
      { name: 'h', kind: 'host-pinned', size: '4MiB' },
    ],
    streams: [
      { name: 'c0', device: 'gpu0' },
      { name: 'c1', device: 'gpu1' },
    ],
    threads: [{ name: 'main', ops }],
    ...extra,
  };
}

function errors(result: ValidationResult): Record<string, string> {
  if (result.ok) {
    throw new Error('expected validation to fail');
  }
  return Object.fromEntries(result.errors.map((e) => [e.path, e.message]));
}

function planOps(input: unknown) {
  const result = validateWorkload(input);
  if (!result.ok) {
    throw new Error(JSON.stringify(result.errors));
  }
  return result.plan;
}

const allReduce = {
  op: 'allReduce',
  group: 'world',
  streams: ['c0', 'c1'],
  send: ['g0', 'g1'],
  bytes: '4MiB',
};

describe('collectives in the workload spec', () => {
  it('expands an in-place allReduce into one plan op with each member’s stream, device and buffer', () => {
    const plan = planOps(spec([allReduce, allReduce]));
    expect(plan.groups).toEqual([{ id: 0, name: 'world', devices: [0, 1] }]);
    const ops = plan.threads[0]!.ops as PlanCollective[];
    expect(ops).toHaveLength(2);
    const op = ops[0]!;
    expect(op).toMatchObject({
      kind: 'collective',
      collective: 'allReduce',
      group: 0,
      bytes: 4 * 1024 ** 2,
      count: 1024 ** 2, // 4 MiB of float32 (4 bytes each)
      dtype: 'float32',
      reduce: 'sum',
      root: null,
      inPlace: true,
      algorithm: 'auto',
      seq: 0,
      src: '$.threads[0].ops[0]',
    });
    // Streams: legacy@gpu0 = 0, legacy@gpu1 = 1, c0 = 2, c1 = 3. Buffers in declared order.
    expect(op.members).toEqual([
      { device: 0, stream: 2, sendBuffer: 0, sendOffset: 0, recvBuffer: 0, recvOffset: 0 },
      { device: 1, stream: 3, sendBuffer: 1, sendOffset: 0, recvBuffer: 1, recvOffset: 0 },
    ]);
    expect(ops[1]!.seq).toBe(1);
  });

  it('places each rank’s region as NCCL does for in-place allGather and reduceScatter', () => {
    const plan = planOps(
      spec([
        { ...allReduce, op: 'allGather', send: ['big0', 'big1'] },
        { ...allReduce, op: 'reduceScatter', send: ['big0', 'big1'] },
      ]),
    );
    const [gather, scatter] = plan.threads[0]!.ops as PlanCollective[];
    const mib4 = 4 * 1024 ** 2;
    // allGather in place: rank r sends from recv + r × bytes.
    expect(gather!.members.map((m) => [m.sendOffset, m.recvOffset])).toEqual([
      [0, 0],
      [mib4, 0],
    ]);
    expect(gather!.reduce).toBeNull();
    // reduceScatter in place: rank r receives into send + r × bytes.
    expect(scatter!.members.map((m) => [m.sendOffset, m.recvOffset])).toEqual([
      [0, 0],
      [0, mib4],
    ]);
  });

  it('names the unknown group, a wrong stream count, a stream on the wrong device and a bad root', () => {
    const found = errors(
      validateWorkload(
        spec([
          { ...allReduce, group: 'nodes' },
          { ...allReduce, streams: ['c0'] },
          { ...allReduce, streams: ['c1', 'c0'], send: ['g0', 'g1'] },
          { ...allReduce, op: 'broadcast', root: 2 },
        ]),
      ),
    );
    expect(found['$.threads[0].ops[0].group']).toBe('unknown group "nodes" (declared: world)');
    expect(found['$.threads[0].ops[1].streams']).toBe(
      'group "world" has 2 members: streams lists 1, one per member in member order',
    );
    expect(found['$.threads[0].ops[2].streams[0]']).toBe(
      'stream "c1" is on device "gpu1", but this member is device "gpu0"',
    );
    expect(found['$.threads[0].ops[3].root']).toBe(
      'root 2 is not a member of group "world" (ranks 0..1)',
    );
  });

  it('refuses buffers that are too small, on another device or in host memory', () => {
    const found = errors(
      validateWorkload(
        spec([
          { ...allReduce, bytes: '8MiB' },
          { ...allReduce, op: 'allGather', recv: ['g0', 'g1'] },
          { ...allReduce, op: 'reduceScatter', recv: ['big0', 'big1'] },
          { ...allReduce, send: ['g1', 'g1'] },
          { ...allReduce, send: ['h', 'g1'] },
        ]),
      ),
    );
    expect(found['$.threads[0].ops[0].send[0]']).toBe(
      'allReduce\'s send region [0, 8388608) falls outside buffer "g0" of 4194304 bytes',
    );
    expect(found['$.threads[0].ops[1].recv[0]']).toBe(
      'allGather\'s recv region [0, 8388608) falls outside buffer "g0" of 4194304 bytes (allGather\'s recv holds members × bytes)',
    );
    expect(found['$.threads[0].ops[2].send[0]']).toMatch(
      /reduceScatter's send region \[0, 8388608\) falls outside buffer "g0".*members × bytes/,
    );
    expect(found['$.threads[0].ops[3].send[0]']).toBe(
      'buffer "g1" is on device "gpu1", but this member is device "gpu0"',
    );
    expect(found['$.threads[0].ops[4].send[0]']).toBe(
      'buffer "h" is host-pinned memory; NCCL moves device memory',
    );
  });

  it('refuses bytes that are not whole elements of the dtype', () => {
    const found = errors(validateWorkload(spec([{ ...allReduce, bytes: 6, dtype: 'float32' }])));
    expect(found['$.threads[0].ops[0].bytes']).toBe(
      '6 bytes is not a whole number of float32 elements (4 bytes each)',
    );
    // The same 6 bytes are three float16 elements.
    expect(validateWorkload(spec([{ ...allReduce, bytes: 6, dtype: 'float16' }])).ok).toBe(true);
  });

  it('refuses a group that lists a device twice or an unknown device, and a group declared twice', () => {
    const found = errors(
      validateWorkload(
        spec([], {
          groups: [
            { name: 'world', devices: ['gpu0', 'gpu0'] },
            { name: 'world', devices: ['gpu1'] },
            { name: 'odd', devices: ['gpu0', 'gpu7'] },
          ],
        }),
      ),
    );
    expect(found['$.groups[0].devices[1]']).toBe(
      'device "gpu0" is in group "world" twice (a device is one member)',
    );
    expect(found['$.groups[1].name']).toBe('group "world" is declared twice');
    expect(found['$.groups[2].devices[1]']).toBe('unknown device "gpu7" (declared: gpu0, gpu1)');
  });

  it('pairs sends with recvs per device pair in issue order, and names what is left unpaired', () => {
    const send = { op: 'send', stream: 'c0', buffer: 'g0', bytes: '1MiB', peer: 'gpu1' };
    const recv = { op: 'recv', stream: 'c1', buffer: 'g1', bytes: '1MiB', peer: 'gpu0' };
    const plan = planOps(spec([send, recv, recv, send]));
    const ops = plan.threads[0]!.ops as PlanP2p[];
    expect(ops.map((o) => [o.kind, o.opId, o.match, o.device, o.peer])).toEqual([
      ['send', 0, 1, 0, 1],
      ['recv', 1, 0, 1, 0],
      ['recv', 2, 3, 1, 0],
      ['send', 3, 2, 0, 1],
    ]);
    expect(errors(validateWorkload(spec([send, send, recv])))['$.threads[0].ops[1]']).toBe(
      'send from "gpu0" to "gpu1" has no matching recv (pairs form per device pair in issue order)',
    );
    const found = errors(
      validateWorkload(spec([send, { ...recv, bytes: '2MiB' }, { ...send, peer: 'gpu0' }])),
    );
    expect(found['$.threads[0].ops[1]']).toMatch(
      /^recv of 2097152 bytes of float32 pairs with send at \$\.threads\[0\]\.ops\[0\] of 1048576 bytes/,
    );
    expect(found['$.threads[0].ops[2].peer']).toBe(
      'send on stream "c0" of device "gpu0" names that same device as its peer',
    );
  });

  it('refuses a collective inside a graph capture', () => {
    const found = errors(
      validateWorkload(spec([{ op: 'graph', name: 'g', stream: 'c0', ops: [allReduce] }])),
    );
    expect(found['$.threads[0].ops[0].ops[0]']).toBe('allReduce cannot be captured into a graph');
  });
});
