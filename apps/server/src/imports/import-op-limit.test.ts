import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTrace, maxImportOpsFor } from '@streamscope/importers';
import { saveTrace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultImportBytes,
  defaultImportOps,
  defaultLimits,
  usableMemoryBytes,
} from '../config.ts';
import { importForeign } from '../integrations/importers.ts';
import { traceTools } from '../integrations/trace-tools.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import type { ErrorBody } from '../test-support/upload.ts';
import { upload } from '../test-support/upload.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../fixtures');
const fixture = (relative: string): Buffer => readFileSync(path.join(fixtures, relative));

// graph.sqlite keeps 1,425 ops, kineto train 827 ops and 1,266 ranges: over 500; compile fewer.
const importOps = 500;
const stages: string[] = [];
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    limits: { ...defaultLimits, importOps },
    importForeign: (filePath, options) =>
      importForeign(filePath, {
        ...options,
        onStage: (stage) => {
          stages.push(stage);
          options.onStage?.(stage);
        },
      }),
  });
});

afterAll(async () => {
  await t.close();
});

async function nothingKept(): Promise<void> {
  expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  const list = await t.api('GET', '/api/traces', '/api/traces');
  expect(list).toEqual({ status: 200, body: [] });
}

/** Uploads `relative` and expects 413 too-large with `message`, and nothing kept. */
async function expectRefused(relative: string, message: string | RegExp): Promise<void> {
  const reply = await upload<ErrorBody>(t.base, fixture(relative), path.basename(relative));
  expect(reply.status).toBe(413);
  expect(reply.body.error?.code).toBe('too-large');
  if (typeof message === 'string') {
    expect(reply.body.error?.message).toBe(message);
  } else {
    expect(reply.body.error?.message).toMatch(message);
  }
  await nothingKept();
}

describe('an upload over the limit of ops an import keeps (limits.importOps)', () => {
  it("is 413 for a SQLite export by its tables' rows, before a row is read", async () => {
    stages.length = 0;
    await expectRefused(
      'nsys/2025.3.1/graph.sqlite.gz',
      // What keeps it all: its 1,425 op rows and 1 NVTX row, rounded up to three digits.
      /^graph\.sqlite\.gz: the export's GPU activity and API call tables hold up to 1425 rows \(by their b-trees\), each an op, over the limit of 500 ops an import keeps; start the server with --max-ops 1430 \(limits\.importOps\) or more to keep it all: about 143 kB at 100 bytes an op, of the \d+\.\d GB this machine has$/,
    );
    expect(stages).toEqual([]);
  });

  it('is 413 for a streamed trace at the op past the limit, naming the flag', async () => {
    await expectRefused(
      'kineto/train.pt.trace.json.gz',
      'train.pt.trace.json.gz: the trace has more than 500 ops and ranges together, the limit an import keeps; start the server with --max-ops N (limits.importOps) to raise it',
    );
  });

  it('is 413 for a streamscope container (.sstrace) whose ops and ranges pass it, as it is decoded', async () => {
    const { trace } = await importTrace(fixture('kineto/train.pt.trace.json.gz'), {
      fileName: 'train.pt.trace.json.gz',
    });
    expect(trace.ops.count + trace.ranges.count).toBeGreaterThan(importOps);
    const reply = await upload<ErrorBody>(t.base, Buffer.from(saveTrace(trace)), 'train.sstrace');
    expect(reply.status).toBe(413);
    expect(reply.body.error?.code).toBe('too-large');
    expect(reply.body.error?.message).toMatch(
      /^train\.sstrace: the trace has more than 500 ops and ranges together, the limit an import keeps \(reached at byte \d+ of the file\); start the server with --max-ops N \(limits\.importOps\) to raise it$/,
    );
    await nothingKept();
  });

  it('leaves the server serving: a trace under the limit imports after the refusals', async () => {
    const reply = await upload<{ opCount: number }>(
      t.base,
      fixture('kineto/compile.pt.trace.json.gz'),
      'compile.pt.trace.json.gz',
    );
    expect(reply.status).toBe(201);
    expect(reply.body.opCount).toBeLessThanOrEqual(importOps);
  });
});

describe('a merge over the limit of ops an import keeps', () => {
  // The gloo pair: 92 ops and 63 ranges a rank; 160 keeps either, not their 184 ops together.
  const mergeOps = 160;
  let m: TestServer;
  beforeAll(async () => {
    m = await startTestServer({
      importForeign,
      tools: traceTools(),
      limits: { ...defaultLimits, importOps: mergeOps },
    });
  });
  afterAll(async () => {
    await m.close();
  });

  it("is 413 by the inputs' ops together, before any is read, and keeps the inputs", async () => {
    const ranks = [];
    for (const name of ['rank0', 'rank1']) {
      const file = `kineto/${name}.pt.trace.json.gz`;
      const reply = await upload<{ id: string; opCount: number }>(
        m.base,
        fixture(file),
        path.basename(file),
      );
      expect(reply.status).toBe(201);
      ranks.push(reply.body);
    }
    const before = await m.api('GET', '/api/traces', '/api/traces');
    const together = ranks[0]!.opCount + ranks[1]!.opCount;
    // Each fits; the pair does not.
    expect(Math.max(ranks[0]!.opCount, ranks[1]!.opCount)).toBeLessThanOrEqual(mergeOps);
    expect(together).toBeGreaterThan(mergeOps);
    const reply = await m.api('POST', '/api/imports/merge', '/api/imports/merge', {
      ids: ranks.map((r) => r.id),
    });
    expect(reply).toEqual({
      status: 413,
      body: {
        error: {
          code: 'too-large',
          message: `these 2 traces hold ${together} ops together, over the limit of ${mergeOps} ops an import keeps; start the server with --max-ops N (limits.importOps) to raise it`,
        },
      },
    });
    // Nothing new stored; both inputs still listed.
    const after = await m.api('GET', '/api/traces', '/api/traces');
    expect(after).toEqual(before);
    const ids = (after.body as { id: string }[]).map((e) => e.id);
    expect(ids).toEqual(expect.arrayContaining(ranks.map((r) => r.id)));
  });
});

describe('the default limits', () => {
  it('take no file size limit and as many ops as 60% of the memory holds at the measured peak', () => {
    expect(defaultImportBytes).toBe(Number.POSITIVE_INFINITY);
    expect(defaultLimits.uploadBytes).toBe(Number.POSITIVE_INFINITY);
    expect(defaultLimits.importOps).toBe(defaultImportOps);
    expect(defaultImportOps).toBe(maxImportOpsFor(usableMemoryBytes()));
    expect(usableMemoryBytes()).toBeGreaterThan(0);
  });
});
