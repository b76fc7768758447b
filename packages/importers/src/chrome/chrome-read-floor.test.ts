import { describe, expect, it } from 'vitest';
import { ImportError } from '../import-error.ts';
import { chromeTraceReadFloor } from './chrome-read-floor.ts';

async function* chunks(text: string, chunkBytes: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    await Promise.resolve();
    yield bytes.subarray(at, at + chunkBytes);
  }
}

describe('chromeTraceReadFloor', () => {
  it('reads every event, scanned or parsed, in chunks of any size, and keeps none', async () => {
    const events = [
      '{"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}}',
      '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5,"dur":1,"args":{"stream":7,"grid":[1,1,1]}}',
      // An escape and spaces: handed to JSON.parse, as the import does.
      '{ "ph" : "X", "cat": "cpu_op", "name": "a\\u0062", "pid": 1, "tid": 2, "ts": 1.5e0, "dur": 2 }',
      '{"ph":"f","id":1,"pid":1,"tid":2,"ts":6,"cat":"ac2g","name":"ac2g","bp":"e"}',
    ];
    const text = `{"schemaVersion":1,"traceEvents":[\n${events.join(',\n')}\n],"traceName":"t"}`;
    for (const chunkBytes of [7, 64, 1 << 20]) {
      expect(await chromeTraceReadFloor(chunks(text, chunkBytes))).toBe(4);
    }
  });

  it('refuses what the import refuses: an event that is not JSON', async () => {
    const text = '{"traceEvents":[{"ph":"X","ts":1,}]}';
    await expect(chromeTraceReadFloor(chunks(text, 16))).rejects.toBeInstanceOf(ImportError);
  });
});
