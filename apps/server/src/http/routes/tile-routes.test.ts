import { existsSync } from 'node:fs';
import { OpKind, StreamType, Trace, decodeTiles, loadTrace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceTools } from '../../integrations/trace-tools.ts';
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

/** Two streams of 4000 slots of 1 µs: 'gemm' kernels, every 4th slot an 'h2d' copy on stream 8. */
function sample(): Trace {
  const trace = new Trace({ title: 'tiles' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  trace.addProcess({ pid: 1, name: 'app' });
  for (const streamId of [7, 8]) {
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId,
      streamType: StreamType.NonBlocking,
      priority: 0,
    });
  }
  const gemm = trace.strings.intern('gemm');
  const h2d = trace.strings.intern('h2d');
  for (let i = 0; i < 4000; i++) {
    const copy = i % 4 === 0;
    trace.addOp({
      startNs: i * 1000,
      endNs: i * 1000 + 400,
      track: copy ? 1 : 0,
      kind: copy ? OpKind.CopyHtoD : OpKind.Kernel,
      nameId: copy ? h2d : gemm,
    });
  }
  return trace;
}

async function store(id: string): Promise<string> {
  return storeAsImport(t.server.store, id, sample());
}

interface ErrorReply {
  readonly error: { readonly code: string; readonly message: string; readonly path?: string };
}

// Worker threads start in about a second on a loaded machine (tsx compiles their sources).
describe('tiles, search and op details of a stored trace', { timeout: 120_000 }, () => {
  it('builds the pyramid on first use, beside the trace, and answers tiles at the asked resolution', async () => {
    const id = await store('tiled1');
    expect(existsSync(t.server.store.tilesPath(id))).toBe(false);
    const meta = await t.api('GET', `/api/traces/${id}/tiles/meta`, '/api/traces/{id}/tiles/meta');
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({ opCount: 4000, trackCount: 2, fanout: 4 });
    expect(existsSync(t.server.store.tilesPath(id))).toBe(true);
    // The skeleton a tiled view opens with: every track and name, the ops at time 0 only.
    const skeleton = await fetch(`${t.base}/api/traces/${id}/tiles/skeleton`);
    expect(skeleton.status).toBe(200);
    const opened = loadTrace(new Uint8Array(await skeleton.arrayBuffer()));
    expect(opened.tracks).toHaveLength(2);
    expect(opened.strings.slice(1)).toEqual(['gemm', 'h2d']);
    expect(opened.ops.count).toBe(1);

    // The whole span over 16 px: buckets of at most 4 000 000 / 16 ns; all 4000 ops counted.
    const whole = await fetch(`${t.base}/api/traces/${id}/tiles?t0Ns=0&t1Ns=4000000&px=16`);
    expect(whole.status).toBe(200);
    const set = decodeTiles(await whole.arrayBuffer());
    expect(set.bucketNs).toBeLessThanOrEqual(4_000_000 / 16);
    expect(set.bucketNs * 4).toBeGreaterThan(4_000_000 / 16);
    const opsOf = (track: number): number => {
      let n = 0;
      for (let k = set.trackFirst[track]!; k < set.trackFirst[track + 1]!; k++) {
        n += set.opCounts[k]!;
      }
      return n;
    };
    expect([opsOf(0), opsOf(1)]).toEqual([3000, 1000]);
    expect(set.kinds[set.trackFirst[1]!]! & 0xff).toBe(OpKind.CopyHtoD);
  });

  it('searches the whole trace and reads an op by index', async () => {
    const id = await store('tiled2');
    const found = await t.api(
      'GET',
      `/api/traces/${id}/search?q=H2&fromNs=10000&limit=3`,
      '/api/traces/{id}/search',
    );
    expect(found.status).toBe(200);
    const body = found.body as { count: number; matches: { op: number; startNs: number }[] };
    expect(body.count).toBe(1000);
    expect(body.matches.map((m) => m.startNs)).toEqual([12_000, 16_000, 20_000]);
    const previous = await t.api(
      'GET',
      `/api/traces/${id}/search?q=^h.d$&regex=1&fromNs=10000&direction=previous&limit=2`,
      '/api/traces/{id}/search',
    );
    expect((previous.body as typeof body).matches.map((m) => m.startNs)).toEqual([4000, 8000]);
    const op = await t.api(
      'GET',
      `/api/traces/${id}/ops/${body.matches[0]!.op}`,
      '/api/traces/{id}/ops/{index}',
    );
    expect(op.body).toMatchObject({
      startNs: 12_000,
      endNs: 12_400,
      kind: 'copy-htod',
      name: 'h2d',
      track: 1,
    });
    const past = await t.api('GET', `/api/traces/${id}/ops/4000`, '/api/traces/{id}/ops/{index}');
    expect(past.status).toBe(404);
  });

  it('answers bad parameters with 400s that name the parameter', async () => {
    const id = await store('tiled3');
    const cases: [string, string, string][] = [
      [`/api/traces/${id}/tiles?t1Ns=10&px=10`, '/api/traces/{id}/tiles', 't0Ns'],
      [`/api/traces/${id}/tiles?t0Ns=10&t1Ns=10&px=10`, '/api/traces/{id}/tiles', 't1Ns'],
      [`/api/traces/${id}/tiles?t0Ns=0&t1Ns=10&px=0`, '/api/traces/{id}/tiles', 'px'],
      [`/api/traces/${id}/tiles?t0Ns=0&t1Ns=10&px=1.5`, '/api/traces/{id}/tiles', 'px'],
      [`/api/traces/${id}/tiles?t0Ns=abc&t1Ns=10&px=1`, '/api/traces/{id}/tiles', 't0Ns'],
      [`/api/traces/${id}/search`, '/api/traces/{id}/search', 'q'],
      [`/api/traces/${id}/search?q=(&regex=1`, '/api/traces/{id}/search', 'q'],
      [`/api/traces/${id}/search?q=a&regex=yes`, '/api/traces/{id}/search', 'regex'],
      [`/api/traces/${id}/search?q=a&direction=up`, '/api/traces/{id}/search', 'direction'],
      [`/api/traces/${id}/search?q=a&limit=0`, '/api/traces/{id}/search', 'limit'],
      [`/api/traces/${id}/ops/-1`, '/api/traces/{id}/ops/{index}', 'index'],
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
      '/api/traces/nosuch/tiles/meta',
      '/api/traces/{id}/tiles/meta',
    );
    expect(missing.status).toBe(404);
  });

  it('removes the pyramid with its trace', async () => {
    const id = await store('tiled4');
    await t.api('GET', `/api/traces/${id}/tiles/meta`, '/api/traces/{id}/tiles/meta');
    expect(existsSync(t.server.store.tilesPath(id))).toBe(true);
    const removed = await t.api('DELETE', `/api/traces/${id}`, '/api/traces/{id}');
    expect(removed.status).toBe(204);
    expect(existsSync(t.server.store.tilesPath(id))).toBe(false);
  });
});
