import { Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { LaneRegistry } from './lane-registry.ts';

describe('LaneRegistry.gpuLane', () => {
  it('gives each (process, device, context, stream) one lane, in order of first sight, however keys share cache slots', () => {
    const lanes = new LaneRegistry();
    const keys: [number, number, number, number][] = [];
    // 2 processes × 2 devices × 3 contexts × 40 streams, some ids beyond 32 bits (noId32 and
    // 2^40 + s): 480 keys for a cache of 64 slots. Ids 64 apart hash alike, so keys that differ
    // in one field alone share a slot: a cache that compared fewer fields would mix them up.
    for (const proc of [0, 64]) {
      for (const device of [0, 64]) {
        for (const context of [1, 65, 0xffffffff]) {
          for (let s = 0; s < 40; s++) {
            keys.push([proc, device, context, s % 2 === 0 ? s * 64 : 2 ** 40 + s]);
          }
        }
      }
    }
    const first = keys.map(([p, d, c, s]) => lanes.gpuLane(p, d, c, s));
    expect(first).toEqual(keys.map((_, i) => i));
    // Again in a scrambled order (7 is coprime with 480), twice: the same lanes, none new.
    for (let round = 0; round < 2; round++) {
      for (let k = 0; k < keys.length; k++) {
        const i = (k * 7) % keys.length;
        const [p, d, c, s] = keys[i]!;
        expect(lanes.gpuLane(p, d, c, s)).toBe(i);
      }
    }
    expect(lanes.count).toBe(keys.length);
  });
});

describe('LaneRegistry.addTracks', () => {
  it('tells apart the used host threads of one process that share a name, by tid', () => {
    const lanes = new LaneRegistry();
    const proc = lanes.processFor('0:1000', 1000);
    const other = lanes.processFor('0:2000', 2000);
    const texts = ['python3', 'worker'];
    const main = lanes.hostLane(proc, 1000);
    const helper = lanes.hostLane(proc, 1001);
    const worker = lanes.hostLane(proc, 1002);
    const unused = lanes.hostLane(proc, 1003);
    const rank1 = lanes.hostLane(other, 2000);
    const stream = lanes.gpuLane(proc, 0, 1, 7);
    for (const [p, tid, ref] of [
      [proc, 1000, 0],
      [proc, 1001, 0],
      [proc, 1002, 1],
      [proc, 1003, 1], // a "worker" too, but with no events: it makes no track to tell apart
      [other, 2000, 0],
    ] as const) {
      lanes.nameThread(p, tid, ref);
    }
    lanes.nameLane(stream, 'Stream 7');
    const used = new Uint8Array(lanes.count).fill(1);
    used[unused] = 0;
    const trace = new Trace();
    const trackOf = lanes.addTracks(trace, used, (ref) => texts[ref]!);
    const nameOf = (lane: number): string => trace.tracks[trackOf[lane]!]!.name;
    expect([main, helper, worker, rank1, stream].map(nameOf)).toEqual([
      'python3 (tid 1000)',
      'python3 (tid 1001)',
      'worker',
      'python3',
      'Stream 7',
    ]);
  });
});
