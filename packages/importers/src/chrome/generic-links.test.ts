import type { Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { apiToGpu, importText, rangeLines } from './chrome-test-support.ts';

// How other tools' Chrome traces join host calls to GPU work: correlation ids (XLA's, CUPTI's
// through converters) within the calling process, and flows from a call to what it launched.

describe('flows and correlation ids as other tools write them', () => {
  const gpu2 = '{"ph":"M","pid":2,"name":"process_name","args":{"name":"GPU2"}}';
  const x = (pid: number, ts: number, dur: number, name: string, args = ''): string =>
    `{"ph":"X","pid":${pid},"tid":${pid === 2 ? 0 : pid},"ts":${ts},"dur":${dur},"name":"${name}"${args === '' ? '' : `,"args":{${args}}`}}`;
  const flow = (ph: string, id: number | null, pid: number, ts: number, bp = ''): string =>
    `{"ph":"${ph}",${id === null ? '' : `"id":${id},`}"cat":"api","pid":${pid},"tid":${pid === 2 ? 0 : pid},"ts":${ts}${bp === '' ? '' : `,"bp":"${bp}"`}}`;
  const names = (trace: Trace, pairs: [number, number][]): string[] => {
    const ops = trace.ops.columns();
    return pairs.map(([a, b]) => `${trace.name(ops.nameId[a]!)}→${trace.name(ops.nameId[b]!)}`);
  };

  it('binds a flow end with no bp to the op that begins at its time, not the next', async () => {
    const { trace, warnings } = await importText(
      `[${[gpu2, x(9, 10, 5, 'launch'), x(2, 16, 3, 'kA'), x(2, 20, 3, 'kB'), flow('s', 1, 9, 11), flow('f', 1, 2, 16)].join(',')}]`,
    );
    expect(names(trace, apiToGpu(trace))).toEqual(['launch→kA']);
    // kB, which no flow reaches, is the one op without a call.
    expect(warnings).toContain('1 GPU operations have no matching API call (kept, flagged orphan)');
  });

  it('pairs each flow start with the next end of its id, and leaves flows without an id', async () => {
    const { trace, warnings } = await importText(
      `[${[
        gpu2,
        x(9, 10, 5, 'launchA'),
        x(9, 20, 5, 'launchB'),
        x(9, 40, 5, 'launchC'),
        x(2, 16, 3, 'kA'),
        x(2, 30, 3, 'kB'),
        x(2, 50, 3, 'kC'),
        flow('s', 1, 9, 11),
        flow('f', 1, 2, 16, 'e'),
        flow('s', 1, 9, 21),
        flow('f', 1, 2, 30, 'e'),
        flow('s', null, 9, 41),
        flow('f', null, 2, 50, 'e'),
      ].join(',')}]`,
    );
    expect(names(trace, apiToGpu(trace))).toEqual(['launchA→kA', 'launchB→kB']);
    expect(rangeLines(trace)).toEqual(['launchC 30+5']);
    expect(warnings).toContain('not drawn: 2 flow events (ph s/t/f)');
  });

  it('joins a call to what its id launched within its own process, though processes reuse ids', async () => {
    // Two ranks whose CUPTI ids both start low, their GPUs as "Device N" processes.
    const call = (pid: number, ts: number, id: number): string =>
      `{"name":"cudaLaunchKernel","ph":"X","pid":${pid},"tid":${pid},"ts":${ts},"dur":4,"args":{"correlationId":${id}}}`;
    const kernel = (device: number, name: string, ts: number, id: number): string =>
      `{"name":"${name}","ph":"X","pid":"Device ${device}","tid":"CUDA API 7","ts":${ts},"dur":5,"args":{"correlationId":${id}}}`;
    const { trace } = await importText(
      `[${[
        '{"name":"process_name","ph":"M","pid":100,"args":{"name":"rank0"}}',
        '{"name":"process_name","ph":"M","pid":200,"args":{"name":"rank1"}}',
        call(100, 1000, 5),
        call(200, 1001, 5),
        call(100, 1005, 6),
        call(200, 1006, 6),
        kernel(0, 'kernA0', 1010, 5),
        kernel(1, 'kernB1', 1011, 5),
        kernel(0, 'kernC0', 1020, 6),
        kernel(1, 'kernD1', 1021, 6),
      ].join(',')}]`,
    );
    const ops = trace.ops.columns();
    const pidOf = (op: number): number => trace.tracks[ops.track[op]!]!.pid;
    const pairs = apiToGpu(trace);
    expect(pairs).toHaveLength(4);
    for (const [from, to] of pairs) {
      expect(pidOf(from)).toBe(pidOf(to));
      expect(ops.correlationId[from]).toBe(ops.correlationId[to]);
    }
    const gpuOf = (name: string): number => {
      const op = pairs.find(([, to]) => trace.name(ops.nameId[to]!) === name)![1];
      const track = trace.tracks[ops.track[op]!]!;
      return track.kind === 'gpu-stream' ? track.deviceId : -1;
    };
    expect([gpuOf('kernA0'), gpuOf('kernC0'), gpuOf('kernB1'), gpuOf('kernD1')]).toEqual([
      0, 0, 1, 1,
    ]);
    expect(trace.processes.map((p) => p.name)).toEqual(['rank0', 'rank1']);
  });

  it("keeps each rank's streams and calls together when ranks run in lockstep with the same ids", async () => {
    // pid 10 and 11 each launch ids 1 and 2 on their own "stream 7", rank 1 a µs behind.
    const call = (pid: number, ts: number, id: number): string =>
      `{"ph":"X","pid":${pid},"tid":1,"name":"cudaLaunchKernel","ts":${ts},"dur":2,"args":{"correlation":${id}}}`;
    const kernel = (pid: number, ts: number, id: number): string =>
      `{"ph":"X","pid":${pid},"tid":"stream 7","name":"k${pid}","ts":${ts},"dur":2,"args":{"correlation":${id}}}`;
    const { trace } = await importText(
      `[${[call(10, 100, 1), call(11, 101, 1), kernel(10, 103, 1), kernel(11, 104, 1), call(10, 200, 2), call(11, 201, 2), kernel(10, 203, 2), kernel(11, 204, 2)].join(',')}]`,
    );
    const ops = trace.ops.columns();
    const pairs = apiToGpu(trace);
    expect(pairs).toHaveLength(4);
    for (const [from, to] of pairs) {
      const pid = trace.tracks[ops.track[from]!]!.pid;
      expect(trace.tracks[ops.track[to]!]!.pid).toBe(pid);
      expect(trace.name(ops.nameId[to]!)).toBe(`k${pid}`);
    }
  });

  it('binds a flow start to the innermost of host events that begin together', async () => {
    // Written as they complete: the launch before the step that holds it, at one start.
    const { trace } = await importText(
      `[${[
        '{"ph":"M","pid":2,"name":"process_name","args":{"name":"GPU 0"}}',
        x(9, 100, 5, 'hipLaunchKernel'),
        x(9, 100, 500, 'train_step'),
        x(2, 200, 10, 'kern'),
        flow('s', 7, 9, 101),
        flow('f', 7, 2, 200),
      ].join(',')}]`,
    );
    expect(names(trace, apiToGpu(trace))).toEqual(['hipLaunchKernel→kern']);
    expect(rangeLines(trace)).toEqual(['train_step 0+500']);
  });

  it('takes id 0 for none, and ids past 32 bits for none', async () => {
    const { trace } = await importText(
      `[${[
        gpu2,
        x(9, 10, 5, 'hostA', '"correlation":0'),
        x(9, 20, 5, 'hostB', '"correlation_id":"4294967297"'),
        x(9, 30, 5, 'hostC', '"correlation_id":"1"'),
        x(2, 16, 3, 'kA', '"correlation":0'),
        x(2, 26, 3, 'kB', '"correlation_id":"4294967297"'),
        x(2, 36, 3, 'kC', '"correlation_id":"1"'),
      ].join(',')}]`,
    );
    expect(names(trace, apiToGpu(trace))).toEqual(['hostC→kC']);
    expect(rangeLines(trace)).toEqual(['hostA 0+5', 'hostB 10+5']);
  });

  it('gives a host event the id of the op its flow leads to', async () => {
    const { trace } = await importText(
      `[${[gpu2, x(9, 10, 5, 'launch'), x(2, 16, 3, 'kA', '"correlation":7'), flow('s', 1, 9, 11), flow('f', 1, 2, 16, 'e')].join(',')}]`,
    );
    expect(names(trace, apiToGpu(trace))).toEqual(['launch→kA']);
  });

  it('counts only threads with events as host threads', async () => {
    const { warnings } = await importText(
      `[${[x(9, 10, 5, 'a'), flow('s', 1, 77, 11), flow('f', 1, 78, 16)].join(',')}]`,
    );
    expect(warnings.join('\n')).toContain('its events are on 1 host thread;');
  });
});
