import { exportTestTrace } from '@streamscope/importers';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceQuery } from '../../storage/trace-query.ts';
import type { TestServer } from '../../test-support/test-server.ts';
import { startTestServer } from '../../test-support/test-server.ts';
import type { TraceFileRef } from '../../workers/protocol.ts';
import { answerTraceQuery } from '../../workers/tasks/query-task.ts';
import { storeAsImport } from '../../test-support/stored-trace.ts';

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function storeTrace(server: TestServer, id: string): Promise<void> {
  await storeAsImport(server.server.store, id, exportTestTrace(500, 20));
}

describe("a stored trace's whole-trace answers", () => {
  it('are computed once and kept: the analysis and the range lanes, until the trace is deleted', async () => {
    let analyses = 0;
    const queries: string[] = [];
    t = await startTestServer({
      tools: {
        analyze: (_ref: TraceFileRef, window) => {
          analyses++;
          return Promise.resolve(JSON.stringify({ analyses, window: window ?? null }));
        },
        query: (ref: TraceFileRef, query: TraceQuery) => {
          queries.push(query.type);
          return answerTraceQuery(ref, query);
        },
      },
    });
    await storeTrace(t, 'kept1');
    const analysis = () => t!.api('GET', '/api/traces/kept1/analysis', '/api/traces/{id}/analysis');
    const [a, b] = await Promise.all([analysis(), analysis()]);
    expect(a).toEqual({ status: 200, body: { analyses: 1, window: null } });
    expect(b).toEqual(a);
    expect(await analysis()).toEqual(a);
    // A window's analysis is made each time.
    const windowed = await t.api(
      'GET',
      '/api/traces/kept1/analysis?fromNs=0&toNs=1000',
      '/api/traces/{id}/analysis',
    );
    expect(windowed).toEqual({
      status: 200,
      body: { analyses: 2, window: { fromNs: 0, toNs: 1000 } },
    });

    const lanes = () =>
      t!.api('GET', '/api/traces/kept1/range-lanes', '/api/traces/{id}/range-lanes');
    const first = await lanes();
    expect(first.status).toBe(200);
    expect(await lanes()).toEqual(first);
    expect(queries).toEqual(['range-lanes']);

    const removed = await fetch(`${t.base}/api/traces/kept1`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    await storeTrace(t, 'kept1');
    expect(await analysis()).toEqual({ status: 200, body: { analyses: 3, window: null } });
    await lanes();
    expect(queries).toEqual(['range-lanes', 'range-lanes']);
    // An unknown trace is a 404 each time: no answer, and no failure, is kept for it.
    for (let i = 0; i < 2; i++) {
      const missing = await t.api('GET', '/api/traces/nope/analysis', '/api/traces/{id}/analysis');
      expect(missing.status).toBe(404);
    }
    expect(analyses).toBe(3);
  });
});
