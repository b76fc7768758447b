import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTrace } from '@streamscope/trace';
import { importForeign } from '../integrations/importers.ts';
import { traceTools } from '../integrations/trace-tools.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import type { UploadReply } from '../test-support/upload.ts';
import { upload as uploadTo } from '../test-support/upload.ts';

const fixtures = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  'fixtures',
);

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    importForeign,
    tools: traceTools(),
    limits: { uploadBytes: 64 << 20 },
  });
});

afterAll(async () => {
  await t.close();
});

/** Uploads a fixture, under its own name or `asName`. */
async function upload(relative: string, asName = path.basename(relative)): Promise<UploadReply> {
  return uploadTo(t.base, await readFile(path.join(fixtures, relative)), asName);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('uploads of every fixture format', () => {
  const good = [
    ['nsys/2025.3.1/train.json', 'nsys-json'],
    ['nsys/2025.3.1/train.sqlite', 'nsys-sqlite'],
    ['nsys/2025.3.1/graph.json.gz', 'nsys-json'],
    ['nsys/2025.3.1/graph.sqlite.gz', 'nsys-sqlite'],
    ['nsys/older/layout-a-2021.json', 'nsys-json'],
    ['nsys/older/schema-2026.sqlite', 'nsys-sqlite'],
    ['kineto/kineto-2021.json', 'chrome-trace'],
    ['kineto/train.pt.trace.json.gz', 'chrome-trace'],
    ['kineto/full.pt.trace.json.gz', 'chrome-trace'],
    ['chrome/jax-h200.trace.json.gz', 'chrome-trace'],
  ] as const;

  it.each(good)(
    'imports %s as %s, stores it and exports it as a Chrome trace',
    async (file, format) => {
      const response = await upload(file);
      expect(response.status).toBe(201);
      const entry = response.body as {
        id: string;
        format: string;
        opCount: number;
        fileName: string;
      };
      expect(entry).toMatchObject({ format, fileName: path.basename(file) });
      expect(entry.opCount).toBeGreaterThan(0);
      const data = await fetch(`${t.base}/api/traces/${entry.id}/data`);
      expect(loadTrace(new Uint8Array(await data.arrayBuffer())).ops.count).toBe(entry.opCount);
      const exported = await fetch(`${t.base}/api/traces/${entry.id}/export?format=chrome`);
      expect(exported.headers.get('content-disposition')).toContain('attachment');
      expect(JSON.parse(await exported.text())).toHaveProperty('traceEvents');
    },
  );

  const broken = [
    'broken/wrong-format.json',
    'broken/gzip-bomb.json.gz',
    'broken/report.nsys-rep',
    'broken/missing-field.json',
    'broken/invalid-utf8.json',
    'broken/truncated.sqlite',
    'broken/missing-table.sqlite',
    'broken/missing-column.sqlite',
  ];

  it.each(broken)(
    'refuses %s with a precise error naming the file, and lists nothing for it',
    async (file) => {
      const before = ((await t.api('GET', '/api/traces', '/api/traces')).body as unknown[]).length;
      const response = await upload(file);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      const error = (response.body as { error: { message: string } }).error;
      expect(error.message).toContain(path.basename(file));
      expect(((await t.api('GET', '/api/traces', '/api/traces')).body as unknown[]).length).toBe(
        before,
      );
    },
  );

  it.each([
    'broken/truncated.json',
    'kineto/array-unterminated.json',
    'broken/dangling-flows.json',
  ])('imports what can be recovered of %s and lists the warnings with it', async (file) => {
    const response = await upload(file);
    expect(response.status).toBe(201);
    const entry = response.body as { id: string; warnings?: string[] };
    expect(entry.warnings?.length).toBeGreaterThan(0);
    const listedEntry = await t.api('GET', `/api/traces/${entry.id}`, '/api/traces/{id}');
    expect(listedEntry.body).toMatchObject({ warnings: entry.warnings });
  });

  it('decides the format by content: an export under a report’s name imports, a real report under any name is told to export', async () => {
    const json = await upload('nsys/2025.3.1/train.json', 'train.nsys-rep');
    expect(json).toMatchObject({
      status: 201,
      body: { format: 'nsys-json', fileName: 'train.nsys-rep' },
    });
    const kineto = await upload('kineto/kineto-2021.json', 'step.qdrep');
    expect(kineto).toMatchObject({ status: 201, body: { format: 'chrome-trace' } });
    const report = await upload('broken/report.nsys-rep', 'capture.bin');
    expect(report.status).toBe(422);
    expect((report.body as { error: { message: string } }).error.message).toContain(
      'nsys export --type sqlite -o capture.sqlite capture.bin',
    );
    const fake = await upload('broken/wrong-format.json', 'fake.nsys-rep');
    expect(fake.status).toBe(422);
    const message = (fake.body as { error: { message: string } }).error.message;
    expect(message).toContain('fake.nsys-rep: not a format streamscope reads');
    expect(message).not.toContain('nsys export --type');
  });

  it('stores nothing of an export’s environment or command line, and keeps no upload', async () => {
    expect((await upload('nsys/older/layout-a-2021.json')).status).toBe(201);
    expect((await upload('nsys/older/schema-2026.sqlite')).status).toBe(201);
    for (const file of await filesUnder(t.dataDir)) {
      const text = (await readFile(file)).toString('latin1');
      expect({ file, secret: /SECRET|HOME=|PATH=/.test(text) }).toEqual({ file, secret: false });
    }
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });
});
