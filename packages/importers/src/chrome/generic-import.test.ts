import type { Trace } from '@streamscope/trace';
import { MemKind, packMemKinds } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importSummary } from '../summary.ts';
import { apiToGpu, importText, opLines, rangeLines } from './chrome-test-support.ts';

// Chrome traces of other tools (no profiler-specific mapping reads them): begin/end pairs,
// TensorFlow's and XLA's rows, ROCm's names, flows, and what is not drawn.

describe('begin/end pairs and the rows of other tools', () => {
  it('ends the begin an end names, and the begins inside it with it', async () => {
    // "E A" while B is innermost: A ends at 10 µs, and B, opened inside it, with it.
    const { trace, warnings } = await importText(
      '[{"ph":"B","name":"A","pid":0,"tid":0,"ts":0},{"ph":"B","name":"B","pid":0,"tid":0,"ts":1},' +
        '{"ph":"E","name":"A","pid":0,"tid":0,"ts":10},{"ph":"X","name":"Z","pid":0,"tid":0,"ts":10,"dur":1}]',
    );
    expect(rangeLines(trace)).toEqual(['A 0+10', 'B 1+9', 'Z 10+1']);
    expect(warnings).toContain(
      '1 end (E) event naming a begin (B) that is not the innermost open one on its thread; the begins inside it end with it',
    );
  });

  it('takes ends written in another order than their begins at one time without a word', async () => {
    // "B beta", "B gamma" at 1 µs, then "E beta", "E gamma" at 2 µs: both end at 2 µs, nested.
    const { trace, warnings } = await importText(
      '[{"ph":"X","name":"alpha","pid":0,"tid":1,"ts":0,"dur":10},' +
        '{"ph":"B","name":"beta","pid":0,"tid":1,"ts":1},{"ph":"B","name":"gamma","pid":0,"tid":1,"ts":1},' +
        '{"ph":"E","name":"beta","pid":0,"tid":1,"ts":2},{"ph":"E","name":"gamma","pid":0,"tid":1,"ts":2}]',
    );
    expect(rangeLines(trace)).toEqual(['alpha 0+10', 'beta 1+1', 'gamma 1+1']);
    expect(warnings.join('\n')).not.toMatch(/end \(E\) event/);
  });

  it('pairs out-of-order ends at one time also when they repeat a name or come in turns', async () => {
    const be = (ph: string, name: string, ts: number): string =>
      `{"ph":"${ph}","name":"${name}","pid":0,"tid":1,"ts":${ts}}`;
    // A name opened again inside itself: the second "E b" at 10 is the inner b's.
    const nested = await importText(
      `[${[be('B', 'b', 0), be('B', 'a', 5), be('B', 'b', 5), be('E', 'a', 10), be('E', 'b', 10), be('E', 'b', 20)].join(',')}]`,
    );
    expect(rangeLines(nested.trace)).toEqual(['b 0+20', 'a 5+5', 'b 5+5']);
    expect(nested.warnings.join('\n')).not.toMatch(/end \(E\) event/);
    // Two such ends at one time: both lists of begins they ended early are kept.
    const turns = await importText(
      `[${[be('B', 'a', 0), be('B', 'b', 0), be('B', 'c', 0), be('B', 'd', 0), be('E', 'c', 10), be('E', 'a', 10), be('E', 'd', 10), be('E', 'b', 10)].join(',')}]`,
    );
    expect(rangeLines(turns.trace)).toEqual(['a 0+10', 'b 0+10', 'c 0+10', 'd 0+10']);
    expect(turns.warnings.join('\n')).not.toMatch(/end \(E\) event/);
  });

  it('ignores an end whose name no open begin has, and ends an unnamed end at the innermost', async () => {
    const { trace, warnings } = await importText(
      '[{"ph":"B","name":"A","pid":0,"tid":0,"ts":0},{"ph":"E","name":"C","pid":0,"tid":0,"ts":2},' +
        '{"ph":"B","name":"C","pid":0,"tid":0,"ts":2},{"ph":"E","pid":0,"tid":0,"ts":4},' +
        '{"ph":"E","name":"A","pid":0,"tid":0,"ts":10}]',
    );
    expect(rangeLines(trace)).toEqual(['A 0+10', 'C 2+2']);
    expect(warnings).toContain(
      '1 end (E) event with no open begin (B) to end on its thread (of its name, where it has one); ignored',
    );
  });

  it("reads a TensorFlow 1.x timeline's streams from its process names, and not its repeat rows", async () => {
    // tf.python.client.timeline: a process per device row; the executor's row is host time.
    const row = (pid: number, name: string): string =>
      `{"ph":"M","name":"process_name","pid":${pid},"args":{"name":"${name}"}}`;
    const x = (pid: number, name: string, ts: number, dur: number): string =>
      `{"ph":"X","name":"${name}","pid":${pid},"tid":0,"ts":${ts},"dur":${dur}}`;
    const { trace, warnings } = await importText(
      `{"traceEvents":[${[
        row(1, '/job:localhost/replica:0/task:0/device:GPU:0 Compute'),
        row(2, '/device:GPU:0/stream:all Compute'),
        row(3, '/device:GPU:0/stream:12 Compute'),
        row(4, '/device:GPU:0/memcpy Compute'),
        row(5, '/device:GPU:0/stream:14 Compute'),
        x(1, 'MatMul', 0, 30),
        x(2, 'MatMul', 40, 5),
        x(3, 'MatMul', 40, 5),
        x(4, 'MEMCPYDtoH', 50, 2),
        x(5, 'MEMCPYDtoH', 50, 2),
      ].join(',')}]}`,
    );
    expect(opLines(trace)).toEqual([
      'Stream 12|kernel|MatMul|40000+5000',
      'Stream 14|copy-dtoh|MEMCPYDtoH|50000+2000',
    ]);
    const ops = trace.ops.columns();
    const devices = [0, 1].map((i) => {
      const track = trace.tracks[ops.track[i]!]!;
      return track.kind === 'gpu-stream' ? track.deviceId : -1;
    });
    expect(devices).toEqual([0, 0]);
    // The stream rows, a process each in the file, are one GPU's: one process holds them.
    expect(new Set([0, 1].map((i) => trace.tracks[ops.track[i]!]!.pid)).size).toBe(1);
    expect(trace.processes.map((p) => p.name)).toContain('/gpu:0');
    expect(rangeLines(trace)).toEqual(['MatMul 0+30']);
    expect(warnings).toContain(
      "not drawn: 2 events on TensorFlow's /gpu:N/stream:all and /gpu:N/memcpy rows, which repeat the stream rows' kernels and copies",
    );
  });

  it("joins an XLA profile's launches to their kernels by correlation_id, and reads memcpy_details", async () => {
    // As JAX writes it: the launch on a host thread of "/host:CPU", named as its kernel; the
    // kernel and the copy on "Stream #N(…)" rows of "/device:GPU:0"; a `{}` last.
    const meta = (pid: number, tid: number | null, name: string): string =>
      `{"ph":"M","pid":${pid},${tid === null ? '' : `"tid":${tid},`}"name":"${tid === null ? 'process_name' : 'thread_name'}","args":{"name":"${name}"}}`;
    const x = (pid: number, tid: number, name: string, ts: number, dur: number, args: string) =>
      `{"ph":"X","pid":${pid},"tid":${tid},"ts":${ts},"dur":${dur},"name":"${name}","args":{${args}}}`;
    const { trace, warnings } = await importText(
      `{"displayTimeUnit":"ns","traceEvents":[${[
        meta(1, null, '/device:GPU:0'),
        meta(1, 14, 'Stream #14(Compute)'),
        meta(1, 19, 'Stream #19(MemcpyD2H)'),
        meta(701, null, '/host:CPU'),
        meta(701, 5, 'python3'),
        x(701, 5, 'PjitFunction(f)', 100, 50, '"long_name":"f"'),
        x(701, 5, 'gemm_kernel', 110, 5, '"correlation_id":"1","device_id":"0"'),
        x(
          701,
          5,
          'MemcpyD2H',
          120,
          6,
          '"correlation_id":"2","memcpy_details":"kind_src:device kind_dst:pinned size:4096 dest:0 async:1"',
        ),
        x(
          1,
          14,
          'gemm_kernel',
          116,
          20,
          '"correlation_id":"1","kernel_details":"regs:168 grid:64,2,1 block:384,1,1"',
        ),
        x(
          1,
          19,
          'MemcpyD2H',
          140,
          2,
          '"correlation_id":"2","memcpy_details":"kind_src:device kind_dst:pinned size:4096 dest:0 async:1"',
        ),
        '{}',
      ].join(',')}]}`,
    );
    expect(warnings).toEqual([]);
    expect(opLines(trace)).toEqual([
      'python3|api-call|gemm_kernel|10000+5000',
      'python3|api-call|MemcpyD2H|20000+6000',
      'Stream 14|kernel|gemm_kernel|16000+20000',
      'Stream 19|copy-dtoh|MemcpyD2H|40000+2000',
    ]);
    // Times from the earliest event, the host range at 100 µs.
    expect(rangeLines(trace)).toEqual(['PjitFunction(f) 0+50']);
    // Each launch is joined to what it launched, and the GPU is the host process's.
    expect(apiToGpu(trace)).toEqual([
      [0, 2],
      [1, 3],
    ]);
    const ops = trace.ops.columns();
    // kernel_details "regs:168 grid:64,2,1 block:384,1,1": its launch configuration.
    expect(trace.launches.get(ops.refId[2]!)).toEqual({
      gridX: 64,
      gridY: 2,
      gridZ: 1,
      blockX: 384,
      blockY: 1,
      blockZ: 1,
      sharedMemBytes: 0,
      registersPerThread: 168,
    });
    expect(ops.bytes[3]).toBe(4096);
    expect(ops.memKinds[3]).toBe(packMemKinds(MemKind.Device, MemKind.Pinned));
    expect(new Set([0, 2].map((i) => trace.tracks[ops.track[i]!]!.pid)).size).toBe(1);
  });

  it("reads ROCm's copy and fill names, and tids written as strings, as numbers", async () => {
    // As AMD's RPD converter writes them: ids as strings, copies named by direction.
    const { trace } = await importText(
      '[{},{"ph":"M","pid":"2","name":"process_name","args":{"name":"GPU2"}},' +
        '{"ph":"X","pid":"2","tid":"0","ts":"10","dur":"2","name":"CopyHostToDevice"},' +
        '{"ph":"X","pid":"2","tid":"0","ts":"20","dur":"2","name":"FillBuffer"},' +
        '{"ph":"X","pid":"2","tid":"0","ts":"30","dur":"2","name":"CopyDeviceToHost"},' +
        '{"ph":"X","pid":"2","tid":"0","ts":"40","dur":"2","name":"Cijk_Ailk_Bljk"},' +
        '{"ph":"X","pid":"5","tid":"1087077","ts":"8","dur":"3","name":"hipMemcpy"}]',
    );
    expect(opLines(trace).map((l) => l.split('|').slice(1, 3).join('|'))).toEqual([
      'copy-htod|CopyHostToDevice',
      'memset|FillBuffer',
      'copy-dtoh|CopyDeviceToHost',
      'kernel|Cijk_Ailk_Bljk',
    ]);
    const host = trace.tracks.find((t) => t.kind === 'host-thread');
    expect(host?.kind === 'host-thread' ? host.tid : -1).toBe(1087077);
  });

  it("joins a host call to the GPU op a flow leads it to, as AMD's RPD writes them", async () => {
    const { trace, warnings } = await importText(
      '[{"ph":"M","pid":2,"name":"process_name","args":{"name":"GPU2"}},' +
        '{"ph":"X","pid":9,"tid":9,"ts":10,"dur":5,"name":"hipLaunchKernel"},' +
        '{"ph":"X","pid":9,"tid":9,"ts":20,"dur":30,"name":"hipMemcpy"},' +
        '{"ph":"X","pid":9,"tid":9,"ts":60,"dur":5,"name":"log"},' +
        '{"ph":"X","pid":2,"tid":0,"ts":16,"dur":3,"name":"gemm"},' +
        '{"ph":"X","pid":2,"tid":0,"ts":25,"dur":20,"name":"CopyDeviceToHost"},' +
        // A launch flow ends on the op it enclosed ("bp":"e"), one at the next op to begin; one
        // flow joins two host events (not drawn), one has a step (t, not drawn).
        '{"ph":"s","id":1,"cat":"api","pid":9,"tid":9,"ts":11},{"ph":"f","id":1,"cat":"api","bp":"e","pid":2,"tid":0,"ts":16},' +
        '{"ph":"s","id":2,"cat":"api","pid":9,"tid":9,"ts":21},{"ph":"f","id":2,"cat":"api","pid":2,"tid":0,"ts":24},' +
        '{"ph":"s","id":3,"cat":"api","pid":9,"tid":9,"ts":22},{"ph":"t","id":3,"cat":"api","pid":9,"tid":9,"ts":40},' +
        '{"ph":"f","id":3,"cat":"api","bp":"e","pid":9,"tid":9,"ts":61}]',
    );
    expect(opLines(trace)).toEqual([
      'Thread 9|api-call|hipLaunchKernel|0+5000',
      'Thread 9|api-call|hipMemcpy|10000+30000',
      'Stream 0|kernel|gemm|6000+3000',
      'Stream 0|copy-dtoh|CopyDeviceToHost|15000+20000',
    ]);
    expect(rangeLines(trace)).toEqual(['log 50+5']);
    expect(apiToGpu(trace)).toEqual([
      [0, 2],
      [1, 3],
    ]);
    expect(warnings).toContain('not drawn: 3 flow events (ph s/t/f)');
  });

  it('counts the GPUs that ran something, not every GPU deviceProperties lists', async () => {
    const { trace } = await importText(
      '{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"A"},{"id":1,"name":"B"},{"id":2,"name":"C"}],' +
        '"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":1,"dur":1,"args":{"device":1,"stream":7}}]}',
    );
    expect(trace.devices).toHaveLength(3);
    expect(importSummary(trace).devices).toBe(1);
  });

  it('says in one warning what the file holds that is not drawn', async () => {
    const { warnings } = await importText(
      '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"i","name":"mark","pid":1,"tid":1,"ts":1},' +
        '{"ph":"C","name":"mem","pid":1,"ts":1,"args":{"v":1}},{"ph":"C","name":"mem","pid":1,"ts":2,"args":{"v":2}},' +
        '{"ph":"n","cat":"io","id":1,"name":"read","pid":1,"tid":1,"ts":1},{"ph":"s","id":2,"name":"f","pid":1,"tid":1,"ts":1}]',
    );
    expect(warnings).toContain(
      'not drawn: 1 instant event (ph i/I/R), 2 counter events (ph C), 1 async event (ph b/e/n/S/T/F/p), 1 flow event (ph s/t/f)',
    );
  });
});

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
