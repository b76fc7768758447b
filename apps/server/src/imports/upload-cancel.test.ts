import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OpKind, StreamType, Trace } from '@streamscope/trace';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { checkResponse } from '../test-support/openapi-check.ts';
import type { ForeignImporter } from './import-service.ts';
import { importedTraceOf } from './imported-trace.ts';

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

function oneKernelTrace(): Trace {
  const trace = new Trace({ title: 'gated', sourceFormat: 'chrome-trace' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  trace.addProcess({ pid: 1, name: 'app' });
  trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: StreamType.Blocking,
    priority: 0,
  });
  trace.addOp({ startNs: 0, endNs: 10, track: 0, kind: OpKind.Kernel, nameId: 0 });
  return trace;
}

/**
 * An importer that reports reading the first 400 bytes and then a table (as a SQLite import does
 * once all is read), then waits until the test opens the gate or the import is aborted; it
 * records whether it saw the abort.
 */
function gatedImporter() {
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const seen = { aborted: false };
  const importer: ForeignImporter = async (_filePath, options) => {
    options.onProgress(100);
    options.onProgress(400);
    options.onStage?.('kernels');
    await new Promise<void>((resolve, reject) => {
      void gate.then(resolve);
      options.signal.addEventListener('abort', () => {
        seen.aborted = true;
        reject(new Error('import cancelled'));
      });
    });
    return importedTraceOf(oneKernelTrace(), [], options.outBase);
  };
  return { importer, open: () => open(), seen };
}

const body = new TextEncoder().encode('{"traceEvents":[' + ' '.repeat(1000) + ']}');

function put(uploadId: string): Promise<{ status: number; body: unknown }> {
  return fetch(`${t!.base}/api/imports?filename=big.json&uploadId=${uploadId}`, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/octet-stream' },
  }).then(async (response) => {
    const parsed: unknown = await response.json();
    checkResponse('PUT', '/api/imports', response.status, parsed);
    return { status: response.status, body: parsed };
  });
}

async function progressOf(uploadId: string): Promise<{ phase: string; parsedBytes?: number }> {
  const progress = await t!.api(
    'GET',
    `/api/imports/${uploadId}/progress`,
    '/api/imports/{uploadId}/progress',
  );
  return progress.body as { phase: string; parsedBytes?: number };
}

/** Polls the progress endpoint until `done(progress)`, yielding to the server between polls. */
async function until(
  uploadId: string,
  done: (p: { phase: string; parsedBytes?: number }) => boolean,
): Promise<{ phase: string; parsedBytes?: number }> {
  for (;;) {
    const response = await fetch(`${t!.base}/api/imports/${uploadId}/progress`);
    if (response.ok) {
      const progress = (await response.json()) as { phase: string; parsedBytes?: number };
      if (done(progress)) {
        return progress;
      }
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('import progress and cancel', () => {
  it('reports the parse phase in bytes and cancels there, keeping nothing', async () => {
    const gated = gatedImporter();
    t = await startTestServer({ importForeign: gated.importer });
    const upload = put('cancel-parse-1');
    const parsing = await until('cancel-parse-1', (p) => p.parsedBytes === 400);
    expect(parsing).toMatchObject({
      phase: 'parsing',
      receivedBytes: body.length,
      totalBytes: body.length,
    });
    // Checked against openapi.yaml: the table being read is part of the progress.
    expect(await progressOf('cancel-parse-1')).toMatchObject({
      phase: 'parsing',
      parsedBytes: 400,
      table: 'kernels',
    });

    const cancelled = await t.api(
      'POST',
      '/api/imports/cancel-parse-1/cancel',
      '/api/imports/{uploadId}/cancel',
    );
    expect(cancelled).toMatchObject({ status: 200, body: { phase: 'cancelled' } });
    expect(gated.seen.aborted).toBe(true);
    expect(await upload).toMatchObject({
      status: 400,
      body: { error: { code: 'import-cancelled' } },
    });
    expect(await progressOf('cancel-parse-1')).toMatchObject({ phase: 'cancelled' });
    expect((await t.api('GET', '/api/traces', '/api/traces')).body).toEqual([]);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('cancels the parse when the uploader disconnects while its file is read', async () => {
    const gated = gatedImporter();
    t = await startTestServer({ importForeign: gated.importer });
    const req = request({
      host: '127.0.0.1',
      port: t.server.port,
      method: 'PUT',
      path: '/api/imports?filename=big.json&uploadId=gone-parse-1',
      headers: { 'content-length': String(body.length) },
    });
    req.on('error', () => undefined);
    req.end(body);
    await until('gone-parse-1', (p) => p.phase === 'parsing' && p.parsedBytes === 400);
    req.destroy();
    await until('gone-parse-1', (p) => p.phase === 'cancelled');
    expect(gated.seen.aborted).toBe(true);
    expect((await t.api('GET', '/api/traces', '/api/traces')).body).toEqual([]);
  });

  it('answers a cancel after the import ended with its outcome, and 404 for an unknown upload', async () => {
    const gated = gatedImporter();
    t = await startTestServer({ importForeign: gated.importer });
    const upload = put('late-cancel-1');
    await until('late-cancel-1', (p) => p.parsedBytes === 400);
    gated.open();
    expect(await upload).toMatchObject({ status: 201, body: { opCount: 1 } });
    const late = await t.api(
      'POST',
      '/api/imports/late-cancel-1/cancel',
      '/api/imports/{uploadId}/cancel',
    );
    expect(late).toMatchObject({ status: 200, body: { phase: 'done' } });
    expect(gated.seen.aborted).toBe(false);
    const unknown = await t.api(
      'POST',
      '/api/imports/no-such-upload/cancel',
      '/api/imports/{uploadId}/cancel',
    );
    expect(unknown.status).toBe(404);
    const bad = await t.api('POST', '/api/imports/x/cancel', '/api/imports/{uploadId}/cancel');
    expect(bad).toMatchObject({ status: 400, body: { error: { path: 'uploadId' } } });
  });
});
