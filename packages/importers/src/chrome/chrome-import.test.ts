import { FlowKind, OpFlag, OpKind, trackLabel } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importSummary } from '../summary.ts';
import { importErrorOf, importFixture } from '../test-support.ts';
import { apiToGpu, importText, opLines, opNamed } from './chrome-test-support.ts';

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
    // The host side: the CUDA API calls on thread 24163 of "python3", joined to what they
    // launched by args.correlationId; the GPU streams of their work are that process's.
    expect(opLines(trace)).toEqual([
      'Thread 24163|api-call|cudaLaunchKernel|0+4500',
      'Stream 7|kernel|elementwise_kernel|10250+12500',
      'Thread 24163|api-call|cudaMemcpyAsync|5000+3000',
      'Stream 14|copy-htod|Memcpy HtoD|11000+20000',
      'Stream 14|copy-dtod|memcpy|40000+2000',
      'Stream 7|memset|Memset|25000+1000',
      'Stream 7|kernel|gemm_kernel|15000+30000',
    ]);
    expect(apiToGpu(trace)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    const gpuTracks = trace.tracks.filter((t) => t.kind === 'gpu-stream');
    expect(gpuTracks.map((t) => `${t.deviceId}/${t.streamId}`).sort()).toEqual([
      '0/14',
      '0/7',
      '1/7',
    ]);
    const ops = trace.ops.columns();
    expect(ops.bytes[opNamed(trace, 'Memcpy HtoD')]).toBe(1048576);
    expect(ops.flags[opNamed(trace, 'memcpy')]! & OpFlag.BytesUnknown).toBe(OpFlag.BytesUnknown);
    expect(trace.ranges.count).toBe(0);
    expect(trace.processes.map((p) => p.name)).toEqual(['python3', 'Device 1']);
    // The memcpy and the memset have ids no call has.
    expect(warnings).toContain('2 GPU operations have no matching API call (kept, flagged orphan)');
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
    expect(ends.problem).toMatch(/1 end \(E\) event with no open begin \(B\) to end/);
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
