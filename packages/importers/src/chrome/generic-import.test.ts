import { MemKind, packMemKinds } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importSummary } from '../summary.ts';
import { importFixture } from '../test-support.ts';
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

  it('draws async begin/end pairs as ranges on rows of their process, paired in time order', async () => {
    const ev = (ph: string, pid: number, ts: number, name: string, id: string | null): string =>
      `{"ph":"${ph}","cat":"io","pid":${pid},"tid":${pid},"ts":${ts},"name":"${name}"${id === null ? '' : `,"id":"${id}"`}}`;
    const { trace, warnings } = await importText(
      `[${[
        // Nestable (b/e): by id within the process; an inner pair of the same id nests.
        ev('b', 1, 0, 'read', '7'),
        ev('b', 1, 2, 'decode', '7'),
        ev('e', 1, 5, 'decode', '7'),
        ev('e', 1, 9, 'read', '7'),
        // Old style (S/F): by category, name and id, even when it ends in another process.
        ev('S', 2, 10, 'rpc', 'a'),
        ev('T', 2, 12, 'rpc', 'a'),
        ev('F', 3, 20, 'rpc', 'a'),
        // An end written before its begin (another thread's buffer) still ends it.
        ev('e', 1, 40, 'write', '8'),
        ev('b', 1, 35, 'write', '8'),
        ev('e', 1, 50, 'stray', '9'),
        ev('b', 1, 51, 'anonymous', null),
      ].join(',')}]`,
    );
    const r = trace.ranges.columns();
    const rows = Array.from(
      { length: r.count },
      (_, i) =>
        `${trace.name(r.nameId[i]!)} ${r.startNs[i]! / 1000}+${(r.endNs[i]! - r.startNs[i]!) / 1000} on ${trace.tracks[r.track[i]!]!.name}`,
    );
    expect(rows.sort()).toEqual([
      'decode 2+3 on io (async) 2',
      'read 0+9 on io (async)',
      'rpc 10+10 on io (async)',
      'write 35+5 on io (async)',
    ]);
    expect(warnings).toContain('1 async end event (ph e/F) with no begin of its id; ignored');
    expect(warnings).toContain(
      'not drawn: 2 async events (ph n/T/p, or an async begin or end with no id)',
    );
  });

  it('spreads async requests in flight together over as many rows as are in flight at once', async () => {
    // 1000 requests, each 15 µs, one every 10 µs: never more than two at once.
    const events = ['{"ph":"M","pid":1,"name":"process_name","args":{"name":"GPU 0"}}'];
    for (let i = 0; i < 1000; i++) {
      const req = (ph: string, ts: number): string =>
        `{"ph":"${ph}","pid":1,"tid":1,"cat":"net","name":"req","id":${i},"ts":${ts}}`;
      events.push(req('b', i * 10), req('e', i * 10 + 15));
    }
    const { trace } = await importText(`[${events.join(',')}]`);
    // Host rows, though the process is named like a GPU; every range at depth 0.
    expect(trace.tracks.map((t) => `${t.kind} ${t.name}`)).toEqual([
      'host-thread net (async)',
      'host-thread net (async) 2',
    ]);
    const r = trace.ranges.columns();
    expect(r.count).toBe(1000);
    expect(Math.max(...r.depth)).toBe(0);
  });

  it('tells apart threads of one process that share a thread_name by tid, as the file writes it', async () => {
    const meta = (tid: number | string, name: string): string =>
      `{"ph":"M","pid":1,"tid":${JSON.stringify(tid)},"name":"thread_name","args":{"name":"${name}"}}`;
    const x = (tid: number | string, ts: number): string =>
      `{"ph":"X","name":"step","pid":1,"tid":${JSON.stringify(tid)},"ts":${ts},"dur":5}`;
    const { trace } = await importText(
      `[${[
        meta(11, 'main'),
        meta(12, 'worker'),
        meta(13, 'worker'),
        meta('Loader A', 'loader'),
        meta('Loader B', 'loader'),
        x(11, 0),
        x(12, 10),
        x(13, 20),
        x('Loader A', 30),
        x('Loader B', 40),
      ].join(',')}]`,
    );
    // The string tids get ids of the importer's own; their labels show the file's.
    expect(trace.tracks.map((t) => t.name)).toEqual([
      'main',
      'worker (tid 12)',
      'worker (tid 13)',
      'loader (tid Loader A)',
      'loader (tid Loader B)',
    ]);
  });

  it('tells apart the two threads named python3 of a recorded JAX profile', async () => {
    const { trace } = await importFixture('chrome/jax-h200.trace.json.gz');
    const hostNames = trace.tracks.flatMap((t) => (t.kind === 'host-thread' ? [t.name] : []));
    expect(hostNames.filter((name) => name.startsWith('python3')).sort()).toEqual([
      'python3 (tid 1746560223)',
      'python3 (tid 3135229742)',
    ]);
    // Its other threads' names are unique, and stay as they are.
    expect(hostNames).toContain('Host Threads/596');
  });

  it('says in one warning what the file holds that is not drawn', async () => {
    const { warnings } = await importText(
      '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"i","name":"mark","pid":1,"tid":1,"ts":1},' +
        '{"ph":"C","name":"mem","pid":1,"ts":1,"args":{"v":1}},{"ph":"C","name":"mem","pid":1,"ts":2,"args":{"v":2}},' +
        '{"ph":"n","cat":"io","id":1,"name":"read","pid":1,"tid":1,"ts":1},{"ph":"s","id":2,"name":"f","pid":1,"tid":1,"ts":1}]',
    );
    expect(warnings).toContain(
      'not drawn: 1 instant event (ph i/I/R), 2 counter events (ph C), 1 async event (ph n/T/p, or an async begin or end with no id), 1 flow event (ph s/t/f)',
    );
  });
});
