import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Trace } from '@streamscope/trace';
import {
  OpBatchReader,
  bytesFile,
  loadTrace,
  saveTrace,
  syntheticTrace,
  traceRecordBatches,
} from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { chromeBatchChunks, chromeTraceChunks } from './chrome-export.ts';
import { flowEvents } from './chrome-export-flows.ts';
import { exportTestTrace } from './export-test-trace.ts';
import { fixturePath } from './test-support.ts';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function exportFromFile(bytes: Uint8Array, chunkChars?: number): Promise<string> {
  const reader = await OpBatchReader.open(bytesFile('t.sstrace', bytes));
  return [...chromeBatchChunks(reader, chunkChars)].join('');
}

// The digests chrome-export-stream.test.ts holds for these recorded runs (the exporter's output
// before it streamed).
const recorded: readonly [string, string][] = [
  ['graphs', 'd8de4a6b5dee5be3d973ea14981538588bb300ddb37b71c46a9f9fe005e1ec63'],
  ['overlap-blog', '80c70f5497de9f3daa1c00297594f3c721bc34648c850b190dde95377fba99de'],
  ['two-gpu-peer', 'ea32b0039fe02fddeee4cdd05301b4657e25cec158c410d284911562ac8512f2'],
  ['two-threads', '7ceb986e7e8d2bb3288fe087c334e291dad3765aff0c6cae5be7de67f698836c'],
];

describe('chromeBatchChunks', () => {
  for (const [name, digest] of recorded) {
    it(`writes the recorded bytes from ${name}.sstrace read a batch at a time`, async () => {
      const bytes = new Uint8Array(readFileSync(fixturePath(`runs/${name}.sstrace`)));
      expect(sha256(await exportFromFile(bytes))).toBe(digest);
      expect(sha256(await exportFromFile(bytes, 1))).toBe(digest);
    });
  }

  const stored: readonly [string, () => Trace][] = [
    ['an empty trace', () => exportTestTrace(0, 10)],
    ['3000 ops with escaped names, ranges and every flow kind', () => exportTestTrace(3000, 120)],
    // 4 stored op batches and 2 of flows: the export's batches straddle them.
    ['100000 synthetic ops', () => syntheticTrace(100_000)],
  ];
  for (const [what, make] of stored) {
    // Seconds for the largest on a loaded machine.
    it(
      `writes what the whole trace's export writes, read from its file: ${what}`,
      { timeout: 60_000 },
      async () => {
        const bytes = saveTrace(make());
        const whole = [...chromeTraceChunks(loadTrace(bytes))].join('');
        expect(await exportFromFile(bytes)).toBe(whole);
      },
    );
  }
});

describe('flowEvents', () => {
  it('writes the same arrows whatever the window of flows looked up at a time', async () => {
    const trace = exportTestTrace(3000, 20);
    expect(trace.flows.count).toBeGreaterThan(900);
    const where = trace.tracks.map((_, i) => ({ pid: 1, tid: i + 1 }));
    const events = (window: number, source = traceRecordBatches(trace)): string[] => [
      ...flowEvents(source, where, window),
    ];
    const reference = events(1 << 18);
    // Two events an arrow, the flow's index + 1 as its id.
    expect(reference).toHaveLength(2 * trace.flows.count);
    expect(reference.at(-1)).toContain(`"id":${trace.flows.count},`);
    for (const window of [1, 7, 1000]) {
      expect(events(window)).toEqual(reference);
    }
    const reader = await OpBatchReader.open(bytesFile('t.sstrace', saveTrace(trace)));
    expect(events(7, reader)).toEqual(events(7, traceRecordBatches(loadTrace(saveTrace(trace)))));
  });
});
