import { describe, expect, it } from 'vitest';
import { exportChromeTrace } from './chrome-export.ts';
import { importTrace } from './import-trace.ts';
import { importFixture } from './test-support.ts';

interface Event {
  readonly ph: string;
  readonly name: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts?: number;
  readonly id?: number;
}

describe('exportChromeTrace', () => {
  it('writes every op and range as an event, every track as a named thread, every flow as an arrow', async () => {
    const { trace } = await importFixture('nsys/older/layout-a-2021.json');
    const json = JSON.parse(exportChromeTrace(trace)) as { traceEvents: Event[] };
    const byPh = (ph: string): Event[] => json.traceEvents.filter((e) => e.ph === ph);
    expect(byPh('X')).toHaveLength(trace.ops.count + trace.ranges.count);
    expect(byPh('s')).toHaveLength(trace.flows.count);
    expect(byPh('f')).toHaveLength(trace.flows.count);
    const threads = byPh('M').filter((e) => e.name === 'thread_name');
    expect(new Set(threads.map((e) => `${e.pid}/${e.tid}`)).size).toBe(trace.tracks.length);
    // Each arrow starts and ends on a track that exists.
    const lanes = new Set(threads.map((e) => `${e.pid}/${e.tid}`));
    for (const e of [...byPh('s'), ...byPh('f')]) {
      expect(lanes.has(`${e.pid}/${e.tid}`)).toBe(true);
    }
  });

  it('imports back as a Chrome trace with the same ops', async () => {
    const { trace } = await importFixture('nsys/2025.3.1/train.json');
    const again = await importTrace(new TextEncoder().encode(exportChromeTrace(trace)), {
      fileName: 'export.json',
    });
    expect(again.trace.meta.sourceFormat).toBe('chrome-trace');
  });
});
