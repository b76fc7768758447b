import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foreignImporter } from '../integrations/importers.ts';
import { traceTools } from '../integrations/trace-tools.ts';
import type { NsysStandInMode } from '../../scripts/nsys-stand-in.ts';
import {
  callsOf,
  isRunning,
  standInExport,
  writeNsysStandIn,
  writeTestReport,
} from '../../scripts/nsys-stand-in.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import type { ErrorBody } from '../test-support/upload.ts';
import { upload } from '../test-support/upload.ts';
import type { ForeignImporter } from './import-service.ts';

const fixtures = path.resolve(import.meta.dirname, '../../../../fixtures');

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A stand-in nsys of `mode` and a report to upload, in a fresh folder. */
async function standIn(mode: NsysStandInMode) {
  const dir = await mkdtemp(path.join(tmpdir(), 'report-upload-'));
  const nsys = await writeNsysStandIn(dir, mode);
  const report = await readFile(await writeTestReport(dir, 'report.nsys-rep'));
  return { dir, nsys, report };
}

/** The server's importer with nsys where the test says: nothing searched beyond it. */
function withNsys(optionPath: string | undefined, timeoutMs?: number): ForeignImporter {
  return foreignImporter({
    env: {},
    installPatterns: [],
    ...(optionPath === undefined ? {} : { optionPath }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

async function listed(): Promise<unknown[]> {
  return (await t!.api('GET', '/api/traces', '/api/traces')).body as unknown[];
}

describe('uploading an Nsight Systems report', () => {
  it('exports it with the server’s nsys and stores the trace under the report’s name', async () => {
    const { dir, nsys, report } = await standIn('export');
    t = await startTestServer({ importForeign: withNsys(nsys), tools: traceTools() });
    const direct = await upload<{ opCount: number }>(
      t.base,
      await readFile(path.join(fixtures, standInExport)),
      'graph.sqlite.gz',
    );
    expect(direct.status).toBe(201);
    const reply = await upload<{
      opCount: number;
      fileName: string;
      title: string;
      format: string;
    }>(t.base, report, 'step 3.nsys-rep');
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      opCount: direct.body.opCount,
      fileName: 'step 3.nsys-rep',
      title: 'step 3.nsys-rep',
      format: 'nsys-sqlite',
    });
    const [call] = await callsOf(dir);
    expect(call!.outputDirMode).toBe(0o700);
    // The export was made beside the upload, on the data volume, and is gone with it.
    expect(path.dirname(call!.outputDir!)).toBe(path.join(t.dataDir, 'uploads'));
    expect(path.basename(call!.args.at(-1)!)).toBe('step_3.nsys-rep');
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('answers 422 with nsys’s exit status and stderr when it fails, keeps what is stored, and serves on', async () => {
    const { nsys, report } = await standIn('fail');
    t = await startTestServer({ importForeign: withNsys(nsys), tools: traceTools() });
    const kept = await upload(
      t.base,
      await readFile(path.join(fixtures, 'nsys/2025.3.1/train.json')),
      'train.json',
    );
    expect(kept.status).toBe(201);
    const reply = await upload<ErrorBody>(t.base, report, 'newer.nsys-rep');
    expect(reply.status).toBe(422);
    expect(reply.body.error).toMatchObject({ code: 'import-failed' });
    expect(reply.body.error!.message).toBe(
      `newer.nsys-rep: nsys could not export the report: ${nsys} (version 2025.3.1.90-253135822126v0) exited with status 3; it said: Report newer.nsys-rep was written by nsys 2025.5.1. | nsys 2025.3.1 cannot fully export reports written by newer nsys versions. | Please use nsys 2025.5.1 or newer to export this report.`,
    );
    expect(await listed()).toHaveLength(1);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
    expect((await fetch(`${t.base}/api/health`)).status).toBe(200);
    const after = await upload(
      t.base,
      await readFile(path.join(fixtures, 'kineto/kineto-2021.json')),
      'after.json',
    );
    expect(after.status).toBe(201);
  });

  it('answers 422 naming where it looked and how to point the server at nsys when it has none', async () => {
    t = await startTestServer({ importForeign: withNsys(undefined), tools: traceTools() });
    const { report } = await standIn('export');
    const reply = await upload<ErrorBody>(t.base, report, 'capture.bin');
    expect(reply.status).toBe(422);
    expect(reply.body.error!.message).toBe(
      'capture.bin: this is an Nsight Systems report (.nsys-rep/.qdrep), which only nsys can read, and no nsys was found (looked at --nsys (not given), NSYS (not set), PATH); install Nsight Systems, or point streamscope at nsys with serve --nsys PATH or NSYS=PATH. Or export it first: nsys export --type sqlite -o capture.sqlite capture.bin (or --type json -o capture.json), then import that file',
    );
  });

  it('says exporting while nsys runs, and a cancel then ends nsys and keeps nothing', async () => {
    const { dir, nsys, report } = await standIn('hang');
    t = await startTestServer({ importForeign: withNsys(nsys), tools: traceTools() });
    const uploading = upload<ErrorBody>(t.base, report, 'slow.nsys-rep', {
      uploadId: 'report-cancel-1',
    });
    const pidFile = path.join(dir, 'hang.pid');
    for (;;) {
      const progress = await t.api(
        'GET',
        '/api/imports/report-cancel-1/progress',
        '/api/imports/{uploadId}/progress',
      );
      if (
        progress.status === 200 &&
        (progress.body as { phase: string }).phase === 'exporting' &&
        existsSync(pidFile)
      ) {
        expect(progress.body).toMatchObject({ receivedBytes: report.length });
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const cancelled = await t.api(
      'POST',
      '/api/imports/report-cancel-1/cancel',
      '/api/imports/{uploadId}/cancel',
    );
    expect(cancelled).toMatchObject({ status: 200, body: { phase: 'cancelled' } });
    expect(await uploading).toMatchObject({
      status: 400,
      body: { error: { code: 'import-cancelled' } },
    });
    expect(isRunning(Number(await readFile(pidFile, 'utf8')))).toBe(false);
    expect(await listed()).toEqual([]);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('stops an export past its time limit with a 422 that says so', async () => {
    const { dir, nsys, report } = await standIn('hang');
    t = await startTestServer({ importForeign: withNsys(nsys, 500), tools: traceTools() });
    const reply = await upload<ErrorBody>(t.base, report, 'slow.nsys-rep');
    expect(reply.status).toBe(422);
    expect(reply.body.error!.message).toContain(
      `${nsys} (version 2025.3.1.90-253135822126v0) did not finish within 0.5 s and was stopped (serve --nsys-timeout-s N raises the limit)`,
    );
    expect(isRunning(Number(await readFile(path.join(dir, 'hang.pid'), 'utf8')))).toBe(false);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });
});
