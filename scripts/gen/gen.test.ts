import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bytesAsRandomAccess, importSummary, importTrace } from '@streamscope/importers';
import type { Trace } from '@streamscope/trace';
import { saveTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { defaultTemplates, generate } from './main.ts';

async function traceOf(file: string): Promise<Trace> {
  return (await importTrace(await readFile(file), { fileName: file })).trace;
}

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
      // train has 338 GPU ops (292 kernels, 34 copies, 12 memsets); its idle start and its two
      // warm-up steps hold 54 of them, written once, so 284 repeat (steps 2 to 11: 250 kernels,
      // 24 copies, 10 memsets): 54 + 4 * 284 = 1190 >= 1000 with 4 replicas.
      expect(s).toMatchObject({ copies: 4, gpuOps: 1190 });
      expect(j).toMatchObject({ copies: 4, gpuOps: 1190 });
      const template = await summaryOf(defaultTemplates['nsys-sqlite']);
      const fromSqlite = await summaryOf(sqlite);
      expect(template.counts.kernel).toBe(42 + 250);
      expect(fromSqlite.counts.kernel).toBe(42 + 4 * 250);
      // 1924 API calls, 1285 of them before the steady steps (880 cuGetProcAddress among them):
      // a long run warms up once.
      expect(template.counts.api).toBe(1285 + 639);
      expect(fromSqlite.counts.api).toBe(1285 + 4 * 639);
      expect(template.counts.range).toBe(9 + 39);
      expect(fromSqlite.counts.range).toBe(9 + 4 * 39);
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

  it('writes the idle start and warm-up once and the steady steps back to back: each replica adds only their span', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gen-test-'));
    try {
      const spans: Record<string, number[]> = { 'nsys-sqlite': [], 'nsys-json': [] };
      for (const format of ['nsys-sqlite', 'nsys-json'] as const) {
        for (const gpuOps of [1, 400, 800]) {
          const file = path.join(dir, `g-${gpuOps}.${format}`);
          expect(generate(format, gpuOps, file).copies).toBe(
            Math.max(1, Math.ceil((gpuOps - 54) / 284)),
          );
          spans[format]!.push((await traceOf(file)).spanNs());
        }
      }
      // One copy is the recording itself: 4.21 s to 9.44 s, of which only the last 0.28 s is
      // busy (the training steps); the 4.8 s before them hold setup and one copy. Of the 12
      // steps, step 0 (240 ms: lazy loading) and step 1 (19 ms) warm up; steps 2 to 11 take
      // 1.2 to 2 ms each.
      const one = (await traceOf(defaultTemplates['nsys-sqlite'])).spanNs();
      expect(spans['nsys-sqlite']![0]).toBe(one);
      // Each replica adds the steady steps: 9.441997340 s (the last end) - 9.426777535 s (step
      // 2's start) = 15,219,805 ns, plus the 1 µs between replicas.
      for (const s of Object.values(spans)) {
        expect(s[1]! - s[0]!).toBe(15_220_805);
        expect(s[2]! - s[1]!).toBe(15_220_805);
      }
      expect(spans['nsys-json']).toEqual(spans['nsys-sqlite']);
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
