import type { Trace } from '@streamscope/trace';
import {
  FlowKind,
  MemKind,
  OpFlag,
  OpKind,
  opKindName,
  packMemKinds,
  trackLabel,
} from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importTrace } from '../import-trace.ts';
import { importSummary } from '../summary.ts';
import { importErrorOf, importFixture } from '../test-support.ts';

function importText(text: string, fileName = 'trace.json'): ReturnType<typeof importTrace> {
  return importTrace(new TextEncoder().encode(text), { fileName });
}

/** Every op as "track label|kind|name|startNs+durNs", in op order. */
function opLines(trace: Trace): string[] {
  const ops = trace.ops.columns();
  const lines: string[] = [];
  for (let i = 0; i < ops.count; i++) {
    const track = trace.tracks[ops.track[i]!]!;
    lines.push(
      `${trackLabel(track)}|${opKindName(ops.kind[i]!)}|${trace.name(ops.nameId[i]!)}|${ops.startNs[i]}+${ops.endNs[i]! - ops.startNs[i]!}`,
    );
  }
  return lines;
}

function opNamed(trace: Trace, name: string, kind?: number): number {
  const ops = trace.ops.columns();
  for (let i = 0; i < ops.count; i++) {
    if (trace.name(ops.nameId[i]!) === name && (kind === undefined || ops.kind[i] === kind)) {
      return i;
    }
  }
  throw new Error(`no op named ${name}`);
}

function apiToGpu(trace: Trace): [number, number][] {
  const flows = trace.flows.columns();
  const out: [number, number][] = [];
  for (let i = 0; i < flows.count; i++) {
    if (flows.kind[i] === FlowKind.ApiToGpu) {
      out.push([flows.fromOp[i]!, flows.toOp[i]!]);
    }
  }
  return out;
}

describe('kineto timestamps in µs since 1970', () => {
  it('imports them to the ns, with the origin kept exactly', async () => {
    const { trace, warnings } = await importFixture('kineto/epoch-us.json');
    expect(warnings).toEqual([]);
    // The earliest event is aten::mm at 1623142623460100.000 µs.
    expect(trace.meta.originNs).toBe('1623142623460100000');
    const lines = opLines(trace);
    // ts 1623142623460111.123, dur 5.432 → 11.123 µs after the origin, 5432 ns long.
    expect(lines).toContain('Stream 7|kernel|ampere_sgemm_64x32_sliced1x4_nn|11123+5432');
    // ts and dur written as strings ("1623142623460150.007", "1.993").
    expect(lines).toContain('Stream 7|copy-dtoh|Memcpy DtoH (Device -> Pinned)|50007+1993');
    expect(lines).toContain('thread 3100 (python3)|api-call|cudaMemcpyAsync|31999+3001');
  });

  it('keeps two events 1 ns apart at 1.7e15 µs 1 ns apart', async () => {
    const event = (ts: string, name: string): string =>
      `{"ph":"X","cat":"kernel","name":"${name}","pid":0,"tid":7,"ts":${ts},"dur":0.001,"args":{"stream":7}}`;
    const { trace } = await importText(
      `[${event('1700000000000000.001', 'a')},${event('1700000000000000.002', 'b')}]`,
    );
    const ops = trace.ops.columns();
    expect([ops.startNs[0], ops.startNs[1]]).toEqual([0, 1]);
    expect(trace.meta.originNs).toBe('1700000000000000001');
  });

  it('reads traces relative to baseTimeNanoseconds as before, to the ns', async () => {
    const { trace } = await importFixture('kineto/train.pt.trace.json.gz');
    // Events at 4460266243080.737 µs (the first) and 4460266250060.14 µs: 6979403 ns apart,
    // where the product of doubles made it 6979402.
    const ranges = trace.ranges.columns();
    const softmax = Array.from({ length: ranges.count }, (_, i) => i).find(
      (i) => trace.name(ranges.nameId[i]!) === 'aten::_log_softmax_backward_data',
    )!;
    expect(ranges.startNs[softmax]).toBe(6979403);
  });

  it('names the event, the field and the unit of every bad time, in µs only', async () => {
    const x = (ts: string, dur = '1'): string =>
      `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":${ts},"dur":${dur}}`;
    const cases: [string, string, RegExp][] = [
      [`[${x('-5')}]`, '[0].ts', /ts must be ≥ 0 µs, got -5$/],
      [
        `{"traceEvents":[${x('"soon"')}]}`,
        'traceEvents[0].ts',
        /ts must be a number of µs, got "soon"/,
      ],
      [`[${x('1e16')}]`, '[0].ts', /ts must be below 2\^53 µs \(9007199254740992 µs\), got 1e16/],
      [
        `[${x('1000')},${x('1700000000000000.5')}]`,
        '[1].ts',
        /ts 1700000000000000\.5 µs is 1699999999999000 µs from the first event's 1000 µs; events may lie at most 4503599627369 µs \(about 52 days\) either side of it/,
      ],
      [`[${x('1', '"x"')}]`, '[0].dur', /dur must be a number of µs, got "x"/],
      [`[{"ph":"B","name":"a","pid":1,"tid":1}]`, '[0].ts', /ts is missing/],
    ];
    for (const [text, path, message] of cases) {
      const error = await importErrorOf(importText(text, 'bad.json'));
      expect(error.path, text).toBe(path);
      expect(error.message, text).toMatch(message);
      expect(error.message, text).not.toMatch(/\bns\b/);
    }
  });
});

describe('Chrome traces that no profiler-specific mapping reads', () => {
  it('opens an nsys-to-Chrome array: "Device N" processes are GPUs, their threads streams', async () => {
    const { trace, warnings } = await importFixture('chrome/nsys-converted.json');
    expect(trace.meta.producer).toBe('Chrome trace events');
    expect(opLines(trace)).toEqual([
      'Stream 7|kernel|elementwise_kernel|10250+12500',
      'Stream 14|copy-htod|Memcpy HtoD|11000+20000',
      'Stream 14|copy-dtod|memcpy|40000+2000',
      'Stream 7|memset|Memset|25000+1000',
      'Stream 7|kernel|gemm_kernel|15000+30000',
    ]);
    const gpuTracks = trace.tracks.filter((t) => t.kind === 'gpu-stream');
    expect(gpuTracks.map((t) => `${t.deviceId}/${t.streamId}`)).toEqual(['0/7', '0/14', '1/7']);
    const ops = trace.ops.columns();
    expect(ops.bytes[opNamed(trace, 'Memcpy HtoD')]).toBe(1048576);
    expect(ops.flags[opNamed(trace, 'memcpy')]! & OpFlag.BytesUnknown).toBe(OpFlag.BytesUnknown);
    // The host side: the CUDA API calls as ranges on thread 24163 of "python3".
    expect(trace.ranges.count).toBe(2);
    expect(trace.processes.map((p) => p.name)).toEqual(['python3', 'Device 0', 'Device 1']);
    expect(warnings.join('\n')).toMatch(/1 copies or memsets carry no size/);
  });

  it('pairs begin and end events, and names tracks by metadata written after them', async () => {
    const { trace } = await importFixture('chrome/begin-end.json');
    // process 2 is "GPU 1" and its thread 13 "CUDA stream 13" only in the last two events.
    expect(opLines(trace)).toEqual([
      'Stream 13|kernel|matmul|13125+6875',
      'Stream 13|copy-dtoh|MemcpyDtoH|22500+1500',
    ]);
    expect(trace.tracks.find((t) => t.kind === 'gpu-stream')).toMatchObject({
      deviceId: 1,
      streamId: 13,
    });
    expect(trace.ops.columns().bytes[1]).toBe(8192); // args.size
    const ranges = trace.ranges.columns();
    const rows = Array.from(
      { length: ranges.count },
      (_, i) =>
        `${trackLabel(trace.tracks[ranges.track[i]!]!)}|${trace.name(ranges.nameId[i]!)}|${ranges.startNs[i]}+${ranges.endNs[i]! - ranges.startNs[i]!}@${ranges.depth[i]}`,
    );
    expect(rows).toEqual([
      'main|step 0|10000+20000@0',
      'main|forward|11500+10500@1',
      'main|launch|12000+750@2',
      'Loader 1|loader|0+25000@0',
    ]);
  });

  it('warns when no track is a GPU, and still opens the host ranges', async () => {
    const { trace, warnings } = await importText(
      '[{"ph":"X","name":"parse","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"X","name":"eval","pid":1,"tid":2,"ts":2,"dur":5}]',
    );
    expect(trace.ranges.count).toBe(2);
    expect(warnings).toEqual([
      'no GPU operation in this trace: its events are on 2 host threads; no process or thread is named like a GPU or a stream ("GPU 0", "Device 0", "stream 7")',
    ]);
  });

  it('fails an import that keeps nothing, and says why', async () => {
    const none = await importErrorOf(importFixture('chrome/no-timed-events.json'));
    expect(none.problem).toBe('no complete (X) or begin/end (B/E) events in 3 events of the file');
    expect((await importErrorOf(importText('[]'))).problem).toBe('the trace has no events');
    const overhead = await importErrorOf(
      importText(
        '{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"overhead","name":"f","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","cat":"gpu_user_annotation","name":"g","pid":0,"tid":7,"ts":2,"dur":1}]}',
      ),
    );
    expect(overhead.problem).toMatch(
      /none of the 2 complete or begin\/end events in 2 events of the file could be kept: this is a kineto trace, and it reads no events of these categories: overhead ×1, gpu_user_annotation ×1/,
    );
    const ends = await importErrorOf(importText('[{"ph":"E","pid":1,"tid":1,"ts":3}]'));
    expect(ends.problem).toMatch(/1 end \(E\) event with no open begin \(B\) of its name/);
  });
});

describe('begin/end pairs and the rows of other tools', () => {
  /** Every range as "name start+dur" in µs, in the trace's order. */
  function rangeLines(trace: Trace): string[] {
    const r = trace.ranges.columns();
    return Array.from(
      { length: r.count },
      (_, i) =>
        `${trace.name(r.nameId[i]!)} ${r.startNs[i]! / 1000}+${(r.endNs[i]! - r.startNs[i]!) / 1000}`,
    );
  }

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

  it('ignores an end whose name no open begin has, and ends an unnamed end at the innermost', async () => {
    const { trace, warnings } = await importText(
      '[{"ph":"B","name":"A","pid":0,"tid":0,"ts":0},{"ph":"E","name":"C","pid":0,"tid":0,"ts":2},' +
        '{"ph":"B","name":"C","pid":0,"tid":0,"ts":2},{"ph":"E","pid":0,"tid":0,"ts":4},' +
        '{"ph":"E","name":"A","pid":0,"tid":0,"ts":10}]',
    );
    expect(rangeLines(trace)).toEqual(['A 0+10', 'C 2+2']);
    expect(warnings).toContain(
      '1 end (E) event with no open begin (B) of its name on its thread; ignored',
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
        '{"ph":"b","cat":"io","id":1,"name":"read","pid":1,"tid":1,"ts":1},{"ph":"s","id":2,"name":"f","pid":1,"tid":1,"ts":1}]',
    );
    expect(warnings).toContain(
      'not drawn: 1 instant event (ph i/I/R), 2 counter events (ph C), 1 async event (ph b/e/n/S/T/F/p), 1 flow event (ph s/t/f)',
    );
  });
});

describe('kineto links, sizes and syncs', () => {
  it('links each kernel to the launch of its own process when two processes reuse ids', async () => {
    const { trace, warnings } = await importFixture('kineto/two-processes.json');
    expect(warnings).toEqual([]);
    const ops = trace.ops.columns();
    const pidOf = (op: number): number => trace.tracks[ops.track[op]!]!.pid;
    const links = apiToGpu(trace);
    expect(links).toHaveLength(6);
    for (const [api, gpu] of links) {
      expect(pidOf(api)).toBe(pidOf(gpu));
      expect(ops.correlationId[api]).toBe(ops.correlationId[gpu]);
    }
    // GPU 1 runs the Triton kernels that pid 200 launched with cuLaunchKernel, ids 2, 3 and 4;
    // pid 100 launched ids 1, 2 and 3 on GPU 0.
    for (let i = 0; i < ops.count; i++) {
      if (ops.kind[i] === OpKind.Kernel) {
        const track = trace.tracks[ops.track[i]!]!;
        expect(track.kind === 'gpu-stream' && track.deviceId === 1 ? 200 : 100).toBe(track.pid);
        expect(ops.flags[i]! & OpFlag.Orphan).toBe(0);
      }
    }
  });

  it("takes a ROCm copy's size from its hipMemcpy call, and says unknown where none has one", async () => {
    const { trace, warnings } = await importFixture('kineto/rocm-hip.json');
    const ops = trace.ops.columns();
    const htod = opNamed(trace, 'Memcpy HtoD (Host -> Device)');
    const dtoh = opNamed(trace, 'Memcpy DtoH (Device -> Host)');
    const dtod = opNamed(trace, 'Memcpy DtoD (Device -> Device)');
    expect([
      ops.bytes[htod],
      ops.bytes[dtoh],
      ops.bytes[opNamed(trace, 'Memset (Device)')],
    ]).toEqual([1048576, 4096, 256]);
    expect(ops.flags[htod]! & OpFlag.BytesUnknown).toBe(0);
    // No hipMemcpy call has id 15: its size is unknown, not 0.
    expect(ops.bytes[dtod]).toBe(0);
    expect(ops.flags[dtod]! & OpFlag.BytesUnknown).toBe(OpFlag.BytesUnknown);
    expect(importSummary(trace).unknownSizeOps).toBe(1);
    expect(warnings).toContain(
      '1 copies or memsets carry no size, on themselves or on their API call; their bandwidth is unknown',
    );
  });

  it('puts Event Sync and Context Sync on the thread that called them, never on a stream', async () => {
    const { trace, warnings } = await importFixture('kineto/syncs.json');
    const ops = trace.ops.columns();
    const trackOf = (op: number) => trace.tracks[ops.track[op]!]!;
    expect(trace.tracks.filter((t) => t.kind === 'gpu-stream').map(trackLabel)).toEqual([
      'Stream 7',
    ]);
    const eventSync = opNamed(trace, 'Event Sync');
    const contextSyncs = Array.from({ length: ops.count }, (_, i) => i).filter(
      (i) => ops.kind[i] === OpKind.DeviceSync,
    );
    expect(ops.kind[eventSync]).toBe(OpKind.EventSync);
    expect(ops.track[eventSync]).toBe(ops.track[opNamed(trace, 'cudaEventSynchronize')]);
    expect(ops.track[contextSyncs[0]!]).toBe(ops.track[opNamed(trace, 'cudaDeviceSynchronize')]);
    // The wait is joined to the call that recorded the event (record corr id 20).
    const flows = trace.flows.columns();
    const record = opNamed(trace, 'cudaEventRecord');
    expect(
      Array.from({ length: flows.count }, (_, i) => i).some(
        (f) =>
          flows.kind[f] === FlowKind.EventRecordToWait &&
          flows.fromOp[f] === record &&
          flows.toOp[f] === eventSync,
      ),
    ).toBe(true);
    // A Context Sync whose call (id 99) is missing: a host row of its GPU.
    expect(trackLabel(trackOf(contextSyncs[1]!))).toBe('GPU 0 syncs (calling thread unknown)');
    expect(trackOf(contextSyncs[1]!).kind).toBe('host-thread');
    expect(warnings.join('\n')).toMatch(/1 sync records with no stream/);
    // Stream Sync names its stream: it stays there.
    expect(trackLabel(trackOf(opNamed(trace, 'Stream Sync')))).toBe('Stream 7');
  });
});
