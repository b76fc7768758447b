import { describe, expect, it } from 'vitest';
import { importTrace } from './import-trace.ts';
import { readFixture } from './test-support.ts';

// sql.js reads synchronously: a SQLite import can only be cancelled between its tables, so it
// stops at each one, lets a cancel arrive and says which table comes next.
describe('SQLite import stages', () => {
  const file = 'nsys/2025.3.1/train.sqlite';

  it('names every table it moves to, in order, after the whole file was read', async () => {
    const bytes = readFixture(file);
    const events: string[] = [];
    const { trace } = await importTrace(new Blob([bytes]), {
      fileName: 'train.sqlite',
      onProgress: (read) => events.push(`read ${read}`),
      onStage: (stage) => events.push(stage),
    });
    const stages = events.filter((e) => !e.startsWith('read '));
    expect(stages).toEqual([
      'strings',
      'kernels',
      'copies',
      'memsets',
      'synchronization',
      'event records',
      'graphs',
      'runtime API',
      'NVTX',
      'devices',
    ]);
    // Every byte is counted before the first table is read.
    expect(events.indexOf('strings')).toBeGreaterThan(events.indexOf(`read ${bytes.length}`));
    expect(trace.ops.count).toBeGreaterThan(2000);
  });

  it('stops at the next table when cancelled during one, reading no further table', async () => {
    const controller = new AbortController();
    const stages: string[] = [];
    const done = importTrace(readFixture(file), {
      fileName: 'train.sqlite',
      signal: controller.signal,
      onStage: (stage) => {
        stages.push(stage);
        if (stage === 'copies') {
          // As a worker's cancel message would: it lands while the copies table is read.
          setTimeout(() => controller.abort(), 0);
        }
      },
    });
    await expect(done).rejects.toThrow(/import cancelled/);
    expect(stages).toEqual(['strings', 'kernels', 'copies']);
  });
});
