import { existsSync } from 'node:fs';
import { FlowKind, OpKind, RangeKind, StreamType, Trace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceTools } from '../../integrations/trace-tools.ts';
import type { AreaAnswer, SearchMarksAnswer } from '../../storage/query-aggregates.ts';
import type { FlowsAnswer, RangeLanesAnswer } from '../../storage/trace-query.ts';
import type { TestServer } from '../../test-support/test-server.ts';
import { startTestServer } from '../../test-support/test-server.ts';
import { ServerWorkers } from '../../workers/server-workers.ts';
import { WorkerPool } from '../../workers/worker-pool.ts';
import { storeAsImport } from '../../test-support/stored-trace.ts';

let t: TestServer;
let pool: WorkerPool;

beforeAll(async () => {
  pool = new WorkerPool({ size: 1 });
  t = await startTestServer({ tools: traceTools(new ServerWorkers(pool)) });
});

afterAll(async () => {
  await t.close();
  await pool.close();
});

/**
 * Track 0: a host thread with a cudaLaunchKernel (0–1 µs) per kernel. Tracks 1 and 2: streams.
 * Stream 1: 1000 'gemm' kernels of 400 ns every 1 µs from 10 µs, then an event record at
 * 1010 µs. Stream 2: 250 'h2d' copies of 600 ns every 4 µs from 10 µs, and a wait at 1020 µs.
 */
function sample(): Trace {
  const trace = new Trace({ title: 'query' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  trace.addProcess({ pid: 1, name: 'app' });
  const host = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  const streams = [7, 8].map((streamId) =>
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId,
      streamType: StreamType.NonBlocking,
      priority: 0,
    }),
  );
  const gemm = trace.strings.intern('gemm');
  const h2d = trace.strings.intern('h2d');
  const launch = trace.strings.intern('cudaLaunchKernel');
  for (let i = 0; i < 1000; i++) {
    const startNs = 10_000 + i * 1000;
    const api = trace.addOp({
      startNs: startNs - 900,
      endNs: startNs - 800,
      track: host,
      kind: OpKind.ApiCall,
      nameId: launch,
      correlationId: i + 1,
    });
    const k = trace.addOp({
      startNs,
      endNs: startNs + 400,
      track: streams[0]!,
      kind: OpKind.Kernel,
      nameId: gemm,
      correlationId: i + 1,
    });
    trace.flows.append(api, k, FlowKind.ApiToGpu);
  }
  for (let i = 0; i < 250; i++) {
    trace.addOp({
      startNs: 10_000 + i * 4000,
      endNs: 10_600 + i * 4000,
      track: streams[1]!,
      kind: OpKind.CopyHtoD,
      nameId: h2d,
    });
  }
  const rec = trace.addOp({
    startNs: 1_010_000,
    endNs: 1_010_000,
    track: streams[0]!,
    kind: OpKind.EventRecord,
    nameId: 0,
  });
  const wait = trace.addOp({
    startNs: 1_020_000,
    endNs: 1_020_000,
    track: streams[1]!,
    kind: OpKind.StreamWait,
    nameId: 0,
  });
  trace.flows.append(rec, wait, FlowKind.EventRecordToWait);
  return trace;
}

/**
 * Stores the sample as `id`; `tiled`: with its tiles file, made as a tiled view's first open
 * makes it (the answers then come from that file, not from the trace decoded whole).
 */
async function store(name: string, tiled: boolean, trace = sample()): Promise<string> {
  const id = `${name}${tiled ? 't' : ''}`;
  await storeAsImport(t.server.store, id, trace);
  if (tiled) {
    expect((await fetch(`${t.base}/api/traces/${id}/tiles/meta`)).status).toBe(200);
    expect(existsSync(t.server.store.tilesPath(id))).toBe(true);
  }
  return id;
}

interface ErrorReply {
  readonly error: { readonly code: string; readonly path?: string };
}

describe('range lanes of a tiled view', { timeout: 120_000 }, () => {
  it("summarises every track's ranges over the whole trace, to label a tiled view's rows", async () => {
    // The sample's host thread with kineto's CPU ops early and an annotation late (a CPU op
    // nested in it): a window of the start holds only CPU ops, one deep.
    const trace = sample();
    const cpuOp = trace.strings.intern('cpu_op');
    const annotation = trace.strings.intern('user_annotation');
    const name = trace.strings.intern('step');
    const ranges: [number, number, number, number][] = [
      [0, 5_000, cpuOp, 0],
      [500_000, 900_000, annotation, 0],
      [600_000, 700_000, cpuOp, 1],
    ];
    for (const [startNs, endNs, domainId, depth] of ranges) {
      trace.ranges.append({
        startNs,
        endNs,
        track: 0,
        nameId: name,
        domainId,
        depth,
        kind: RangeKind.PushPop,
      });
    }
    const id = await store('lanes1', false, trace);
    const reply = await t.api(
      'GET',
      `/api/traces/${id}/range-lanes`,
      '/api/traces/{id}/range-lanes',
    );
    expect(reply.status).toBe(200);
    expect((reply.body as RangeLanesAnswer).tracks).toEqual([
      { track: 0, depth: 2, count: 3, domains: ['cpu_op', 'user_annotation'] },
    ]);
    const missing = await t.api(
      'GET',
      '/api/traces/nope/range-lanes',
      '/api/traces/{id}/range-lanes',
    );
    expect(missing.status).toBe(404);
  });

  it('sums ranges stored over many batches, reading the ranges without the ops', async () => {
    // 70,000 ranges: three stored batches of at most 32,768 records.
    const trace = sample();
    const domain = trace.strings.intern('nvtx');
    const name = trace.strings.intern('step');
    for (let i = 0; i < 70_000; i++) {
      trace.ranges.append({
        startNs: i * 10,
        endNs: i * 10 + 5,
        track: 0,
        nameId: name,
        domainId: i % 7 === 0 ? domain : 0,
        depth: i % 3,
        kind: RangeKind.PushPop,
      });
    }
    const id = await store('lanes2', false, trace);
    const reply = await t.api(
      'GET',
      `/api/traces/${id}/range-lanes`,
      '/api/traces/{id}/range-lanes',
    );
    expect((reply.body as RangeLanesAnswer).tracks).toEqual([
      { track: 0, depth: 3, count: 70_000, domains: ['nvtx', ''] },
    ]);
  });
});

describe.each([
  ['the trace decoded whole (no tiles file yet)', false],
  ['its tiles file', true],
])('whole-trace questions of a tiled view, answered from %s', { timeout: 120_000 }, (_, tiled) => {
  it('aggregates an area exactly: counts, busy time and groups per track and kind', async () => {
    const id = await store('query1', tiled);
    // [100 µs, 200.2 µs] on the two streams: kernels start at 100, 101, … 200 µs (101 of them;
    // the one at 200 µs overlaps by 0.2 µs); copies start at 102, 106, … 198 µs (25), and the one
    // at 98 µs ends at 98.6, before the range.
    const reply = await t.api(
      'GET',
      `/api/traces/${id}/area?fromNs=100000&toNs=200200&tracks=1,2`,
      '/api/traces/{id}/area',
    );
    expect(reply.status).toBe(200);
    const area = reply.body as AreaAnswer;
    expect(area.count).toBe(126);
    expect(area.tracks.map((r) => [r.track, r.count])).toEqual([
      [1, 101],
      [2, 25],
    ]);
    // Busy inside the range: 100 kernels × 400 ns, plus the last one clipped to 200 ns.
    expect(area.tracks[0]!.busyNs).toBe(100 * 400 + 200);
    expect(area.tracks[1]!.busyNs).toBe(25 * 600);
    expect(area.tracks[1]!.kinds).toEqual([{ kind: 'copy-htod', count: 25, sumNs: 25 * 600 }]);
    // Groups count whole durations, largest total first.
    expect(area.groups.map((g) => [g.name, g.count, g.sumNs, g.minNs, g.maxNs])).toEqual([
      ['gemm', 101, 101 * 400, 400, 400],
      ['h2d', 25, 25 * 600, 600, 600],
    ]);
    expect(area.groupCount).toBe(2);

    // Without tracks: every track, the host thread's API calls too.
    const all = await t.api(
      'GET',
      `/api/traces/${id}/area?fromNs=100000&toNs=200200`,
      '/api/traces/{id}/area',
    );
    const everything = all.body as AreaAnswer;
    expect(everything.tracks.map((r) => r.track)).toEqual([0, 1, 2]);
    // API calls at 100.1 µs … 200.1 µs (9.1 µs + 1 µs·i, i = 91 … 191), each 100 ns: 101.
    expect(everything.tracks[0]!.count).toBe(101);
  });

  it("finds an op's flows over the whole trace, with both ends", async () => {
    const id = await store('query2', tiled);
    const kernel = await t.api(
      'GET',
      `/api/traces/${id}/flows?track=1&startNs=510000`,
      '/api/traces/{id}/flows',
    );
    expect(kernel.status).toBe(200);
    const answer = kernel.body as FlowsAnswer;
    expect(answer.op).toMatchObject({
      track: 1,
      startNs: 510_000,
      name: 'gemm',
      kindName: 'kernel',
    });
    expect(answer.flows).toHaveLength(1);
    expect(answer.flows[0]!.kind).toBe(FlowKind.ApiToGpu);
    expect(answer.flows[0]!.from).toMatchObject({
      track: 0,
      startNs: 509_100,
      endNs: 509_200,
      name: 'cudaLaunchKernel',
      correlationId: 501,
    });
    const wait = await t.api(
      'GET',
      `/api/traces/${id}/flows?track=2&startNs=1020000`,
      '/api/traces/{id}/flows',
    );
    const waitFlows = (wait.body as FlowsAnswer).flows;
    expect(waitFlows.map((f) => [f.kind, f.from.startNs, f.from.track, f.to.startNs])).toEqual([
      [FlowKind.EventRecordToWait, 1_010_000, 1, 1_020_000],
    ]);
    const none = await t.api(
      'GET',
      `/api/traces/${id}/flows?track=1&startNs=510001`,
      '/api/traces/{id}/flows',
    );
    expect(none.status).toBe(404);
  });

  it('says where the matches of a search are, per track and bucket', async () => {
    const id = await store('query3', tiled);
    const reply = await t.api(
      'GET',
      `/api/traces/${id}/search/marks?q=H2D&buckets=10`,
      '/api/traces/{id}/search/marks',
    );
    expect(reply.status).toBe(200);
    const marks = reply.body as SearchMarksAnswer;
    expect(marks.count).toBe(250);
    // The span is 1020 µs (the last op's end): ten buckets of 102 µs.
    expect(marks.bucketNs).toBe(102_000);
    expect(marks.tracks).toHaveLength(1);
    const row = marks.tracks[0]!;
    expect(row.track).toBe(2);
    // Copies start at 10 µs + 4 µs·i (up to 1006 µs): buckets 0 … 9, 25 or 26 in each.
    expect(row.buckets).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(row.counts.reduce((a, b) => a + b, 0)).toBe(250);
    // 10, 14, … 98 µs start before 102 µs: (98 - 10) / 4 + 1 = 23.
    expect(row.counts[0]).toBe(23);
    const regex = await t.api(
      'GET',
      `/api/traces/${id}/search/marks?q=^g.mm$&regex=1`,
      '/api/traces/{id}/search/marks',
    );
    expect((regex.body as SearchMarksAnswer).count).toBe(1000);
  });

  it('answers bad parameters with 400s that name the parameter', async () => {
    const id = await store('query4', tiled);
    const cases: [string, string, string][] = [
      [`/api/traces/${id}/area?toNs=10`, '/api/traces/{id}/area', 'fromNs'],
      [`/api/traces/${id}/area?fromNs=0`, '/api/traces/{id}/area', 'toNs'],
      [`/api/traces/${id}/area?fromNs=20&toNs=10`, '/api/traces/{id}/area', 'fromNs'],
      [`/api/traces/${id}/area?fromNs=0&toNs=10&tracks=1,x`, '/api/traces/{id}/area', 'tracks'],
      [`/api/traces/${id}/area?fromNs=0&toNs=10&tracks=9`, '/api/traces/{id}/area', 'tracks'],
      [`/api/traces/${id}/flows?startNs=0`, '/api/traces/{id}/flows', 'track'],
      [`/api/traces/${id}/flows?track=1.5&startNs=0`, '/api/traces/{id}/flows', 'track'],
      [`/api/traces/${id}/flows?track=9&startNs=0`, '/api/traces/{id}/flows', 'track'],
      [`/api/traces/${id}/flows?track=1`, '/api/traces/{id}/flows', 'startNs'],
      [`/api/traces/${id}/search/marks`, '/api/traces/{id}/search/marks', 'q'],
      [`/api/traces/${id}/search/marks?q=(&regex=1`, '/api/traces/{id}/search/marks', 'q'],
      [`/api/traces/${id}/search/marks?q=a&regex=2`, '/api/traces/{id}/search/marks', 'regex'],
      [`/api/traces/${id}/search/marks?q=a&buckets=0`, '/api/traces/{id}/search/marks', 'buckets'],
    ];
    for (const [url, route, parameter] of cases) {
      const reply = await t.api('GET', url, route);
      expect({ url, status: reply.status, path: (reply.body as ErrorReply).error.path }).toEqual({
        url,
        status: 400,
        path: parameter,
      });
    }
    const missing = await t.api(
      'GET',
      '/api/traces/nosuch/area?fromNs=0&toNs=1',
      '/api/traces/{id}/area',
    );
    expect(missing.status).toBe(404);
  });
});
