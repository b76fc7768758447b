import { OpKind, StreamType, Trace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { traceTools } from '../../integrations/trace-tools.ts';
import type * as TileFileModule from '../../storage/tile-file.ts';
import type { TestServer } from '../../test-support/test-server.ts';
import { startTestServer } from '../../test-support/test-server.ts';
import { ServerWorkers } from '../../workers/server-workers.ts';
import { WorkerPool } from '../../workers/worker-pool.ts';
import { storeAsImport } from '../../test-support/stored-trace.ts';

// Names matched on this thread (the server's event loop); the worker threads load their own
// copy of tile-file.ts, which this does not see.
const onLoop = vi.hoisted(() => ({ calls: (): number => 0 }));
vi.mock('../../storage/tile-file.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof TileFileModule>();
  // Calls through to the real method, counting.
  const spy = vi.spyOn(actual.TileFile.prototype, 'matchingNames');
  onLoop.calls = () => spy.mock.calls.length;
  return actual;
});

let t: TestServer;
let pool: WorkerPool;

beforeAll(async () => {
  pool = new WorkerPool({ size: 1 });
  t = await startTestServer({
    tools: traceTools(new ServerWorkers(pool)),
    limits: { searchMs: 4000 },
  });
});

afterAll(async () => {
  await t.close();
  await pool.close();
});

/** One stream of 300 kernels: 'gemm', and every 3rd one named 40 'a's and a '!'. */
async function stored(id: string): Promise<void> {
  const trace = new Trace({ title: 'names' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  trace.addProcess({ pid: 1, name: 'app' });
  trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: StreamType.NonBlocking,
    priority: 0,
  });
  const gemm = trace.strings.intern('gemm');
  const long = trace.strings.intern(`${'a'.repeat(40)}!`);
  for (let i = 0; i < 300; i++) {
    trace.addOp({
      startNs: i * 1000,
      endNs: i * 1000 + 400,
      track: 0,
      kind: OpKind.Kernel,
      nameId: i % 3 === 0 ? long : gemm,
    });
  }
  await storeAsImport(t.server.store, id, trace, 'names');
}

async function search(id: string, query: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${t.base}/api/traces/${id}/search?${query}`);
  return { status: response.status, body: await response.json() };
}

// Worker threads start in about a second on a loaded machine (tsx compiles their sources).
describe('name search of a tiled trace', { timeout: 120_000 }, () => {
  it('matches names in a worker, never on the event loop', async () => {
    await stored('names1');
    const before = onLoop.calls();
    expect(await search('names1', 'q=GEM&limit=2')).toMatchObject({
      status: 200,
      body: { count: 200, matches: [{ op: 1 }, { op: 2 }] },
    });
    expect(
      await search('names1', `q=${encodeURIComponent('^a+!$')}&regex=1&limit=2`),
    ).toMatchObject({
      status: 200,
      body: { count: 100, matches: [{ op: 0 }, { op: 3 }] },
    });
    expect(onLoop.calls() - before).toBe(0);
  });

  it('stops a regular expression that backtracks past the time limit, and keeps serving', async () => {
    await stored('names2');
    // (a+)+$ against 40 'a's and a '!' tries about 2^40 ways before it fails.
    const slow = search('names2', `q=${encodeURIComponent('(a+)+$')}&regex=1`);
    const health = await fetch(`${t.base}/api/health`);
    expect(health.status).toBe(200);
    expect(await slow).toEqual({
      status: 422,
      body: {
        error: {
          code: 'search-too-slow',
          message:
            "the search ran past its 4000 ms over the trace's names and was stopped; use a simpler pattern",
          path: 'q',
        },
      },
    });
    // The worker that was stuck is ended; the next search gets a fresh one.
    expect(await search('names2', 'q=gemm&limit=1')).toMatchObject({
      status: 200,
      body: { count: 200 },
    });
  });

  it("cuts a tiled trace's search marks at the same limit, matching names in a worker", async () => {
    await stored('names3');
    // The view opens the trace tiled first: its tiles file is made, and marks are read from it.
    expect((await fetch(`${t.base}/api/traces/names3/tiles/meta`)).status).toBe(200);
    const before = onLoop.calls();
    const marks = async (query: string): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${t.base}/api/traces/names3/search/marks?${query}`);
      return { status: response.status, body: await response.json() };
    };
    expect(await marks(`q=${encodeURIComponent('(a+)+$')}&regex=1`)).toEqual({
      status: 422,
      body: {
        error: {
          code: 'search-too-slow',
          message:
            "the search ran past its 4000 ms over the trace's names and was stopped; use a simpler pattern",
          path: 'q',
        },
      },
    });
    // Kernels every 1000 ns over 299 400 ns: 4 buckets of 74 850 ns, 'gemm' in 2 of each 3.
    expect(await marks('q=gemm&buckets=4')).toEqual({
      status: 200,
      body: {
        count: 200,
        bucketNs: 74_850,
        tracks: [{ track: 0, buckets: [0, 1, 2, 3], counts: [50, 50, 50, 50] }],
      },
    });
    expect(onLoop.calls() - before).toBe(0);
  });
});
