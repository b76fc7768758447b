import { describe, expect, it } from 'vitest';
import { JsonEventSplitter } from './json-splitter.ts';

function split(chunks: readonly Uint8Array[]): unknown[] {
  const events: unknown[] = [];
  const splitter = new JsonEventSplitter(
    't.json',
    { event: (e) => events.push(e.parsed), topValue: () => undefined },
    new Set(),
  );
  for (const chunk of chunks) {
    splitter.push(chunk);
  }
  splitter.end();
  return events;
}

describe('JsonEventSplitter', () => {
  it('cuts events with escaped quotes, backslashes and nested braces the same at every chunk boundary', () => {
    const events = [
      { name: 'a \\"}" b', args: { x: [1, { y: '}]' }] } },
      { name: 'ends in a backslash \\', ts: 1 },
      { name: '\\\\"{', args: {} },
    ];
    const bytes = new TextEncoder().encode(
      `{"traceEvents": [${events.map((e) => JSON.stringify(e)).join(',\n')}]}`,
    );
    expect(split([bytes])).toEqual(events);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(split([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(events);
    }
    // One byte at a time: every state is carried from chunk to chunk.
    expect(split([...bytes].map((b) => Uint8Array.of(b)))).toEqual(events);
  });
});
