import { kinetoTopKeys } from './chrome-sink.ts';
import { JsonEventSplitter } from './json-splitter.ts';

/**
 * For benchmarks: the reading part of a Chrome/kineto trace import alone. Every event is cut
 * from the chunks and read as the importer reads it (the byte scanner, JSON.parse for the events
 * it hands over, the kineto top-level values parsed), but no event reaches the trace: no time
 * is read, no op, lane or range is made and nothing is built. Returns the events read.
 */
export async function chromeTraceReadFloor(chunks: AsyncIterable<Uint8Array>): Promise<number> {
  let events = 0;
  const splitter = new JsonEventSplitter(
    'floor',
    {
      event: () => {
        events++;
      },
      topValue: () => undefined,
    },
    new Set(kinetoTopKeys),
  );
  for await (const chunk of chunks) {
    splitter.push(chunk);
  }
  splitter.end();
  return events;
}
