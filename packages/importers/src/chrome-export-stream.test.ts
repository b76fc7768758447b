import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Trace } from '@streamscope/trace';
import { loadTrace, syntheticTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { chromeTraceChunks, chromeTraceHead, exportChromeTrace } from './chrome-export.ts';
import { exportTestTrace } from './export-test-trace.ts';
import { fixturePath } from './test-support.ts';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function joined(trace: Trace, chunkChars?: number): string {
  return [...chromeTraceChunks(trace, chunkChars)].join('');
}

// SHA-256 of what the exporter wrote before it streamed (one string built whole): the streamed
// output must not differ by a byte.
const before: readonly [string, () => Trace, string][] = [
  [
    'graphs.sstrace',
    () => run('graphs'),
    'd8de4a6b5dee5be3d973ea14981538588bb300ddb37b71c46a9f9fe005e1ec63',
  ],
  [
    'overlap-blog.sstrace (a range)',
    () => run('overlap-blog'),
    '80c70f5497de9f3daa1c00297594f3c721bc34648c850b190dde95377fba99de',
  ],
  [
    'two-gpu-peer.sstrace',
    () => run('two-gpu-peer'),
    'ea32b0039fe02fddeee4cdd05301b4657e25cec158c410d284911562ac8512f2',
  ],
  [
    'two-threads.sstrace',
    () => run('two-threads'),
    '7ceb986e7e8d2bb3288fe087c334e291dad3765aff0c6cae5be7de67f698836c',
  ],
  [
    'an empty trace',
    () => exportTestTrace(0, 10),
    'ae276e49a654421a99196f3322beb13ceaeb69bf04f95c3b26c336fb1e23c6ec',
  ],
  [
    '3000 ops with escaped names',
    () => exportTestTrace(3000, 120),
    '2c31e31754c2e3a56f8beaf5faeaa34a94b80f7bc0380e00f2e4a3a2284f30d6',
  ],
  [
    '20000 synthetic ops',
    () => syntheticTrace(20_000),
    '5870da712ef8d4358c9582190f48af96226a9c10f5dcc1b773039a1fa796d4cc',
  ],
];

function run(name: string): Trace {
  return loadTrace(readFileSync(fixturePath(`runs/${name}.sstrace`)));
}

describe('chromeTraceChunks', () => {
  for (const [what, make, digest] of before) {
    it(`writes the bytes the whole-string export wrote, in chunks of any size: ${what}`, () => {
      const trace = make();
      expect(sha256(exportChromeTrace(trace))).toBe(digest);
      expect(sha256(joined(trace))).toBe(digest);
      expect(sha256(joined(trace, trace.ops.count > 5000 ? 997 : 1))).toBe(digest);
    });
  }

  it('parses to what the whole-string export wrote for a moderate trace', () => {
    // Written by the exporter before it streamed, from exportTestTrace(120, 120).
    const old = readFileSync(
      new URL('__snapshots__/chrome-export__moderate.json.txt', import.meta.url),
      'utf8',
    );
    expect(JSON.parse(joined(exportTestTrace(120, 120), 997))).toEqual(JSON.parse(old));
  });

  it('yields the head alone, then chunks of the size asked for, one event at most past it', () => {
    const trace = exportTestTrace(2000, 120);
    const [head, ...rest] = [...chromeTraceChunks(trace, 8192)];
    expect(head).toBe(chromeTraceHead(trace.meta));
    expect(head).toBe(
      '{"displayTimeUnit":"ns","otherData":{"producer":"streamscope","sourceFormat":"nsys-json","originNs":"0"},"traceEvents":[\n',
    );
    expect(rest.length).toBeGreaterThan(20);
    // Every chunk but the last reaches 8192 characters and overshoots by less than one event.
    for (const chunk of rest.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThanOrEqual(8192);
      expect(chunk.length).toBeLessThan(8192 + 400);
    }
    // Without the head, the rest of the same JSON.
    expect([...chromeTraceChunks(trace, 8192, false)].join('')).toBe(rest.join(''));
  });

  // About 570 MB of JSON: seconds on a quiet core, far more on a loaded one.
  it(
    'exports a trace whose JSON is longer than the longest string V8 can hold',
    { timeout: 300_000 },
    () => {
      // V8's string length limit on 64-bit hosts: 2^29 − 24 characters.
      const maxStringChars = 2 ** 29 - 24;
      expect(() => 'x'.repeat(maxStringChars + 1)).toThrow(RangeError);
      // 4000-character kernel names: about 4270 characters per kernel and its launch.
      const trace = exportTestTrace(260_000, 4000);
      const sink = new EventSink();
      for (const chunk of chromeTraceChunks(trace)) {
        sink.write(chunk);
      }
      expect(sink.chars).toBeGreaterThan(maxStringChars);
      expect(sink.head).toMatch(/^\{"displayTimeUnit":"ns","otherData":\{.*\},"traceEvents":\[$/);
      expect(sink.closing).toBe(']}');
      expect(sink.rest).toBe('');
      const flowEvents = 2 * trace.flows.count;
      expect(sink.eventsByPhase).toEqual({
        M: 2 * trace.tracks.length + 2,
        X: trace.ops.count + trace.ranges.count,
        s: flowEvents / 2,
        f: flowEvents / 2,
      });
      expect(sink.parsed).toBeGreaterThan(1000);
    },
  );
});

/**
 * Reads the export line by line (one event per line) without keeping it: counts characters and
 * events by phase, and parses every 200th event and the last one in full.
 */
class EventSink {
  chars = 0;
  head: string | undefined;
  closing: string | undefined;
  parsed = 0;
  readonly eventsByPhase: Record<string, number> = {};
  /** What follows the last newline. */
  rest = '';
  private lines = 0;

  write(chunk: string): void {
    this.chars += chunk.length;
    let text = this.rest + chunk;
    let newline = text.indexOf('\n');
    while (newline >= 0) {
      this.line(text.slice(0, newline));
      text = text.slice(newline + 1);
      newline = text.indexOf('\n');
    }
    this.rest = text;
  }

  private line(text: string): void {
    this.lines++;
    if (this.head === undefined) {
      this.head = text;
      return;
    }
    if (text === ']}') {
      this.closing = text;
      return;
    }
    const event = text.endsWith(',') ? text.slice(0, -1) : text;
    const phase = /^\{"ph":"([A-Za-z])"/.exec(event)?.[1] ?? '?';
    this.eventsByPhase[phase] = (this.eventsByPhase[phase] ?? 0) + 1;
    if (this.lines % 200 === 0 || !text.endsWith(',')) {
      const parsed = JSON.parse(event) as { ph: string };
      expect(parsed.ph).toBe(phase);
      this.parsed++;
    }
  }
}
