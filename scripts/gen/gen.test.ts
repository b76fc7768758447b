import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bytesAsRandomAccess, importSummary, importTrace } from '@streamscope/importers';
import { saveTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { defaultTemplates, generate } from './main.ts';

async function summaryOf(file: string): Promise<ReturnType<typeof importSummary>> {
  return importSummary((await importTrace(await readFile(file), { fileName: file })).trace);
}

describe('the export generator', () => {
  it('repeats the recorded run as nsys SQLite and JSON with the same content, readable by both SQLite engines', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gen-test-'));
    try {
      const sqlite = path.join(dir, 'g.sqlite');
      const json = path.join(dir, 'g.json');
      const s = generate('nsys-sqlite', 1000, sqlite);
      const j = generate('nsys-json', 1000, json);
      // train has 338 GPU ops (292 kernels, 34 copies, 12 memsets): 3 copies reach 1000.
      expect(s).toMatchObject({ copies: 3, gpuOps: 1014 });
      expect(j).toMatchObject({ copies: 3, gpuOps: 1014 });
      const template = await summaryOf(defaultTemplates['nsys-sqlite']);
      const fromSqlite = await summaryOf(sqlite);
      expect(fromSqlite.counts.kernel).toBe(3 * template.counts.kernel);
      expect(fromSqlite.counts.api).toBe(3 * template.counts.api);
      expect(fromSqlite.counts.range).toBe(3 * template.counts.range);
      expect((await summaryOf(json)).counts).toEqual(fromSqlite.counts);
      // The page writer's file reads the same through sql.js and through our reader.
      const bytes = new Uint8Array(await readFile(sqlite));
      const a = saveTrace((await importTrace(bytes.slice(), { fileName: 'g.sqlite' })).trace);
      const b = saveTrace(
        (await importTrace(bytesAsRandomAccess(bytes), { fileName: 'g.sqlite' })).trace,
      );
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('repeats a kineto trace with its GPU ops and API calls paired in every copy', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gen-test-'));
    try {
      const file = path.join(dir, 'k.json');
      const generated = generate('kineto', 1, file);
      expect(generated.copies).toBe(1);
      const one = await summaryOf(file);
      const three = generate('kineto', generated.gpuOps * 2 + 1, file);
      expect(three.copies).toBe(3);
      const summary = await summaryOf(file);
      expect(summary.counts.kernel).toBe(3 * one.counts.kernel);
      expect(summary.counts.api).toBe(3 * one.counts.api);
      expect(summary.warnings).toEqual(one.warnings);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
