import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { importForeign } from '../integrations/importers.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import type { ErrorBody } from '../test-support/upload.ts';
import { upload } from '../test-support/upload.ts';
import type { ForeignImporter } from './import-service.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../fixtures');
const graphGz = readFileSync(path.join(fixtures, 'nsys/2025.3.1/graph.sqlite.gz'));
const graphBytes = gunzipSync(graphGz).length;

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The real importer, with a look at the uploads folder each time it reports a table. */
function watchedImporter(seen: { file: string; bytes: number }[][]): ForeignImporter {
  return (filePath, options) =>
    importForeign(filePath, {
      ...options,
      onStage: (table) => {
        const dir = path.dirname(filePath);
        seen.push(
          readdirSync(dir).map((file) => ({ file, bytes: statSync(path.join(dir, file)).size })),
        );
        options.onStage?.(table);
      },
    });
}

describe("a gzip'd SQLite upload", () => {
  it('is inflated to a file beside the upload, read from there, and the file is removed', async () => {
    const seen: { file: string; bytes: number }[][] = [];
    t = await startTestServer({ importForeign: watchedImporter(seen) });
    const response = await upload<ErrorBody>(t.base, graphGz, 'graph.sqlite.gz');
    expect(response).toMatchObject({ status: 201, body: { format: 'nsys-sqlite' } });
    // While sql.js read its tables, the whole inflated export lay on disk next to the upload.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toEqual([
      { file: expect.stringMatching(/\.part$/) as unknown, bytes: graphGz.length },
      { file: expect.stringMatching(/\.part\.inflated$/) as unknown, bytes: graphBytes },
    ]);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('stops at the limit on inflated bytes, naming it and the flag that raises it', async () => {
    const limit = 256 * 1024;
    expect(graphGz.length).toBeLessThan(limit);
    expect(graphBytes).toBeGreaterThan(limit);
    t = await startTestServer({ importForeign, limits: { uploadBytes: limit } });
    const response = await upload<ErrorBody>(t.base, graphGz, 'graph.sqlite.gz');
    expect(response).toMatchObject({ status: 413, body: { error: { code: 'too-large' } } });
    expect(response.body.error!.message).toBe(
      `graph.sqlite.gz: the gzip content inflates past the ${limit}-byte limit for imports; ` +
        'start the server with --max-upload-mb N (limits.uploadBytes) to raise it',
    );
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('removes the inflated file when the export turns out damaged', async () => {
    t = await startTestServer({ importForeign });
    const truncated = gzipSync(readFileSync(path.join(fixtures, 'broken/truncated.sqlite')));
    const response = await upload<ErrorBody>(t.base, truncated, 'cut.sqlite.gz');
    expect(response).toMatchObject({ status: 422, body: { error: { code: 'import-failed' } } });
    expect(response.body.error!.message).toContain('cut.sqlite.gz');
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('removes the inflated file when the import is cancelled while it is inflated', async () => {
    // The export, then 48 MiB of zeros after its last page: long enough to cancel midway.
    const big = gzipSync(Buffer.concat([gunzipSync(graphGz), Buffer.alloc(48 << 20)]));
    let sawInflating = false;
    const cancelling: ForeignImporter = (filePath, options) =>
      importForeign(filePath, {
        ...options,
        onProgress: (bytes) => {
          if (!sawInflating && existsSync(`${filePath}.inflated`)) {
            sawInflating = true;
            void fetch(`${t!.base}/api/imports/inflate-cancel-1/cancel`, { method: 'POST' });
          }
          options.onProgress(bytes);
        },
      });
    t = await startTestServer({ importForeign: cancelling });
    const response = await upload<ErrorBody>(t.base, big, 'big.sqlite.gz', {
      uploadId: 'inflate-cancel-1',
    });
    expect(sawInflating).toBe(true);
    expect(response).toMatchObject({ status: 400, body: { error: { code: 'import-cancelled' } } });
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('reads one SQLite export at a time when several arrive at once', async () => {
    const stages: string[] = [];
    const logged: ForeignImporter = (filePath, options) =>
      importForeign(filePath, {
        ...options,
        onStage: (table) => {
          stages.push(options.fileName);
          options.onStage?.(table);
        },
      });
    t = await startTestServer({ importForeign: logged });
    const names = ['a.sqlite.gz', 'b.sqlite.gz', 'c.sqlite.gz'];
    const responses = await Promise.all(names.map((name) => upload(t!.base, graphGz, name)));
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201]);
    // Each export's tables are read in one stretch: no other export is in memory meanwhile.
    const stretches = stages.filter((name, i) => i === 0 || stages[i - 1] !== name);
    expect([...stretches].sort()).toEqual(names);
  });
});
