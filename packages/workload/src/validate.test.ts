import { describe, expect, it } from 'vitest';
import type { WorkloadInput } from './schema.ts';
import type { ValidationResult } from './validate.ts';
import { validateWorkload } from './validate.ts';

function spec(ops: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'test',
    buffers: [
      { name: 'h', kind: 'host-pinned', size: '4MiB' },
      { name: 'd', kind: 'device', size: '4MiB' },
    ],
    streams: [{ name: 's', count: 2 }],
    events: [{ name: 'e' }],
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

function plan(input: unknown) {
  const result = validateWorkload(input);
  if (!result.ok) {
    throw new Error(JSON.stringify(result.errors));
  }
  return result.plan;
}

describe('validateWorkload', () => {
  it('reports unknown fields and wrong types at their JSON paths, all at once', () => {
    const found = errors(
      validateWorkload(
        spec([{ op: 'kernel', duration: '1ms', colour: 'red' }, { op: 'launch' }], { extra: 1 }),
      ),
    );
    expect(found['$.threads[0].ops[0].colour']).toBe('unknown field "colour"');
    expect(found['$.threads[0].ops[1].op']).toMatch(/Invalid discriminator/);
    expect(found['$.extra']).toBe('unknown field "extra"');
  });

  it('reports bad units, out-of-range indices, unknown names and ranges outside buffers together', () => {
    const found = errors(
      validateWorkload(
        spec([
          { op: 'copy', src: 'h', dst: 'd', bytes: '5MiB', stream: 's[0]' },
          { op: 'kernel', duration: '5MiB', stream: 's[2]' },
          { op: 'memset', dst: 'nowhere' },
          { op: 'copy', src: 'h', dst: 'd', srcOffset: '-1', bytes: 16 },
          { op: 'copy', src: 'h', dst: 'd', bytes: '8MiB', stream: 'nope' },
        ]),
      ),
    );
    expect(found['$.threads[0].ops[0].bytes']).toMatch(
      /\[0, 5242880\) fall outside buffer "h" of 4194304 bytes/,
    );
    expect(found['$.threads[0].ops[1].duration']).toBe('expected a duration, got a size: "5MiB"');
    expect(found['$.threads[0].ops[1].stream']).toMatch(
      /s\[2\] is out of range: "s" has 2 streams/,
    );
    expect(found['$.threads[0].ops[2].dst']).toMatch(/unknown buffer "nowhere" \(declared: h, d\)/);
    expect(found['$.threads[0].ops[3].srcOffset']).toMatch(/below the minimum 0/);
    // a wrong stream does not hide a range outside the buffer
    expect(found['$.threads[0].ops[4].stream']).toMatch(/unknown stream "nope"/);
    expect(found['$.threads[0].ops[4].bytes']).toMatch(/fall outside buffer "h"/);
  });

  it('rejects absurd sizes and device memory beyond capacity', () => {
    const found = errors(
      validateWorkload(
        spec([], {
          devices: [{ name: 'gpu0', memory: '1GiB' }],
          buffers: [
            { name: 'a', kind: 'device', size: '768MiB' },
            { name: 'b', kind: 'device', size: '512MiB' },
            { name: 'c', kind: 'host-pinned', size: '1PiB' },
            { name: 'z', kind: 'host-pinned', size: 0 },
          ],
        }),
      ),
    );
    expect(found['$.buffers[1].size']).toMatch(
      /would hold 1342177280 bytes of buffers, more than its 1073741824/,
    );
    expect(found['$.buffers[2].size']).toMatch(/unknown unit "PiB"/);
    expect(found['$.buffers[3].size']).toMatch(/below the minimum 1/);
  });

  it('refuses waits on events that are never recorded or not yet recorded', () => {
    const found = errors(
      validateWorkload(
        spec(
          [
            { op: 'streamWait', event: 'e', stream: 's[0]' },
            { op: 'eventRecord', event: 'e', stream: 's[1]' },
            { op: 'eventSync', event: 'never' },
          ],
          { events: [{ name: 'e' }, { name: 'never' }] },
        ),
      ),
    );
    expect(found['$.threads[0].ops[0]']).toMatch(
      /waits on event "e" before this thread first records it/,
    );
    expect(found['$.threads[0].ops[2]']).toMatch(/event "never" is never recorded/);
  });

  it('finds a cycle of cross-thread waits that would deadlock', () => {
    const input = {
      name: 'deadlock',
      streams: [{ name: 'a' }, { name: 'b' }],
      events: [{ name: 'ea' }, { name: 'eb' }],
      threads: [
        {
          name: 't0',
          ops: [
            { op: 'eventSync', event: 'eb' },
            { op: 'eventRecord', event: 'ea', stream: 'a' },
          ],
        },
        {
          name: 't1',
          ops: [
            { op: 'eventSync', event: 'ea' },
            { op: 'eventRecord', event: 'eb', stream: 'b' },
          ],
        },
      ],
    };
    const found = errors(validateWorkload(input));
    expect(found['$.threads[0].ops[0]']).toMatch(/deadlock: thread "t0" waits here/);
    expect(found['$.threads[1].ops[0]']).toMatch(/deadlock: thread "t1" waits here/);
  });

  it('binds a cross-thread wait to the first record of the recording thread', () => {
    const p = plan({
      name: 'handoff',
      streams: [{ name: 'a' }, { name: 'b' }],
      events: [{ name: 'ready' }],
      threads: [
        {
          name: 'producer',
          ops: [
            { op: 'kernel', duration: '1ms', stream: 'a' },
            { op: 'eventRecord', event: 'ready', stream: 'a' },
          ],
        },
        {
          name: 'consumer',
          ops: [
            { op: 'streamWait', event: 'ready', stream: 'b' },
            { op: 'kernel', duration: '1ms', stream: 'b' },
          ],
        },
      ],
    });
    const record = p.threads[0]!.ops[1]!;
    const wait = p.threads[1]!.ops[0]!;
    expect(wait.kind === 'streamWait' && wait.afterRecord).toBe(record.opId);
    expect(p.events[0]!.recordedBy).toBe(0);
  });

  it('rejects an event recorded by two threads', () => {
    const found = errors(
      validateWorkload({
        name: 'two',
        events: [{ name: 'e' }],
        threads: [
          { name: 't0', ops: [{ op: 'eventRecord', event: 'e' }] },
          { name: 't1', ops: [{ op: 'eventRecord', event: 'e' }] },
        ],
      }),
    );
    expect(found['$.threads[1].ops[0]']).toMatch(
      /also recorded by thread "t0"; an event has one recording thread/,
    );
  });

  it('tracks malloc and free: no use while unallocated, no double malloc', () => {
    const found = errors(
      validateWorkload(
        spec(
          [
            { op: 'memset', dst: 'tmp' },
            { op: 'malloc', buffer: 'tmp' },
            { op: 'malloc', buffer: 'tmp' },
            { op: 'free', buffer: 'tmp' },
            { op: 'copy', src: 'h', dst: 'tmp' },
            { op: 'malloc', buffer: 'pool', async: false },
          ],
          {
            buffers: [
              { name: 'h', kind: 'host-pinned', size: '4MiB' },
              { name: 'tmp', kind: 'device', size: '4MiB' },
              { name: 'pool', kind: 'stream-ordered', size: '4MiB' },
            ],
          },
        ),
      ),
    );
    expect(found['$.threads[0].ops[0].dst']).toMatch(/used while not allocated/);
    expect(found['$.threads[0].ops[2].buffer']).toMatch(/allocated again before it is freed/);
    expect(found['$.threads[0].ops[4].dst']).toMatch(/used while not allocated/);
    expect(found['$.threads[0].ops[5].async']).toMatch(/allocated with async: true/);
  });

  it('keeps synchronous copies on a default stream and graphs free of host-side ops', () => {
    const found = errors(
      validateWorkload(
        spec([
          { op: 'copy', src: 'h', dst: 'd', async: false, stream: 's[0]' },
          { op: 'graph', name: 'g', stream: 'legacy', ops: [{ op: 'kernel', duration: '1us' }] },
          {
            op: 'graph',
            name: 'g2',
            stream: 's[0]',
            ops: [{ op: 'deviceSync' }, { op: 'kernel', duration: '1us', stream: 's[1]' }],
          },
          { op: 'graphLaunch', graph: 'nope', stream: 's[0]' },
        ]),
      ),
    );
    expect(found['$.threads[0].ops[0].stream']).toMatch(/runs on a default stream/);
    expect(found['$.threads[0].ops[1].stream']).toMatch(/legacy default stream cannot be captured/);
    expect(found['$.threads[0].ops[2].ops[0]']).toMatch(/cannot be captured into a graph/);
    expect(found['$.threads[0].ops[2].ops[1].stream']).toMatch(/branches are not supported/);
    expect(found['$.threads[0].ops[3].graph']).toMatch(/launched before this thread captures it/);
  });

  it('stops runaway specs at the op and duration limits', () => {
    const tooMany = errors(
      validateWorkload(
        spec([
          {
            op: 'repeat',
            count: 1000,
            ops: [
              { op: 'repeat', count: 1000, var: 'j', ops: [{ op: 'kernel', duration: '1ns' }] },
            ],
          },
        ]),
        {
          maxOps: 10_000,
        },
      ),
    );
    // Counted before expanding: reported at the inner repeat, where 1000 × 1000 crosses the limit.
    expect(tooMany['$.threads[0].ops[0].ops[0]']).toBe(
      '1000 × 1000 iterations × 1 op = 1000000 ops: the workload runs more than 10000 ops (limit maxOps)',
    );
    const tooLong = errors(
      validateWorkload(
        spec([{ op: 'repeat', count: 200, ops: [{ op: 'hostWork', duration: '1s' }] }]),
      ),
    );
    expect(tooLong['$.threads[0].ops[0].ops[0]']).toMatch(/limit maxTotalDurationNs/);
  });

  it('refuses specs nested absurdly deep and loops that spin without ops', () => {
    let ops: unknown[] = [{ op: 'deviceSync' }];
    for (let i = 0; i < 5000; i++) {
      ops = [{ op: 'repeat', count: 1, ops }];
    }
    const deep = validateWorkload(spec(ops));
    expect(deep.ok).toBe(false);
    expect(deep.ok ? '' : deep.errors[0]!.message).toMatch(/nests deeper than 100 levels/);
    const spin = errors(
      validateWorkload(
        spec([
          {
            op: 'repeat',
            count: 2_000_000,
            ops: [{ op: 'repeat', count: 2_000_000, var: 'j', ops: [] }],
          },
        ]),
      ),
    );
    expect(spin['$.threads[0].ops[0].ops[0]']).toMatch(/loops run more than 4000000 iterations/);
  });

  it('expands loops with the index in offsets, sizes and names into numbered plan ops', () => {
    const input: WorkloadInput = {
      name: 'chunks',
      buffers: [
        { name: 'h', kind: 'host-pinned', size: '16MiB' },
        { name: 'd', kind: 'device', size: '16MiB' },
      ],
      streams: [{ name: 's', count: 4, type: 'non-blocking', priority: -1 }],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'range',
              name: 'pipeline',
              ops: [
                {
                  op: 'repeat',
                  count: 4,
                  ops: [
                    {
                      op: 'copy',
                      src: 'h',
                      dst: 'd',
                      srcOffset: 'i * 4MiB',
                      dstOffset: 'i * 4MiB',
                      bytes: '16MiB / 4',
                      stream: 's[i]',
                    },
                    {
                      op: 'kernel',
                      name: 'k{i}',
                      duration: '(i + 1) * 10us',
                      grid: [2, 2, 1],
                      stream: 's[i]',
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const p = plan(input);
    const ops = p.threads[0]!.ops;
    expect(ops.map((o) => o.kind)).toEqual([
      'rangePush',
      ...Array<string[]>(4).fill(['copy', 'kernel']).flat(),
      'rangePop',
    ]);
    const copy = ops[5]!;
    // i = 2: offset 2 × 4 MiB, 4 MiB long, on s[2] (stream id 1 + 2: the legacy stream is id 0)
    expect(copy).toMatchObject({
      kind: 'copy',
      direction: 'htod',
      srcOffset: 8 * 1024 ** 2,
      bytes: 4 * 1024 ** 2,
      stream: 3,
      async: true,
    });
    expect(ops[6]).toMatchObject({
      kind: 'kernel',
      name: 'k2',
      mode: 'timed',
      durNs: 30_000,
      grid: [2, 2, 1],
      block: [256, 1, 1],
    });
    expect(new Set(ops.map((o) => o.opId)).size).toBe(ops.length);
    expect(p.streams[3]).toMatchObject({
      name: 's[2]',
      type: 'non-blocking',
      priority: -1,
      device: 0,
    });
    expect(p.declaredDurationNs).toBe(10_000 + 20_000 + 30_000 + 40_000);
    // Plain JSON: survives a round trip unchanged (a C++ executor reads it).
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });
});
