import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dumpTrace } from '../dump-trace.ts';
import { ImportError } from '../import-error.ts';
import { importTrace } from '../import-trace.ts';
import type { NsysJsonReader } from './nsys-json.ts';
import { readFixture } from '../test-support.ts';

const lines = new TextDecoder()
  .decode(readFixture('nsys/older/layout-a-2021.json'))
  .split('\n')
  .filter((line) => line !== '');

type Json = Record<string, unknown>;

/** One random edit of an event: drop a key, add an unknown one, or rename one to a same-length key. */
const edit = fc.record({
  line: fc.nat(),
  what: fc.constantFrom('drop', 'add', 'rename', 'rename-middle', 'swap'),
  key: fc.nat(),
  value: fc.oneof(fc.integer({ min: -5, max: 1e9 }), fc.constantFrom('7', 'abc', '123456789')),
});

function mutate(
  events: Json[],
  e: { line: number; what: string; key: number; value: unknown },
): void {
  const event = events[e.line % events.length]!;
  const inner = Object.values(event).find(
    (v): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v),
  );
  if (inner === undefined) {
    return;
  }
  const keys = Object.keys(inner);
  const key = keys[e.key % keys.length]!;
  const entries = Object.entries(inner);
  for (const k of keys) {
    delete inner[k];
  }
  entries.forEach(([k, v], i) => {
    if (e.what === 'drop' && k === key) {
      return;
    }
    if (e.what === 'rename' && k === key) {
      inner[`${k.slice(0, -1)}${k.endsWith('Q') ? 'R' : 'Q'}`] = v;
      return;
    }
    if (e.what === 'rename-middle' && k === key && k.length > 2) {
      const at = k.length >> 1;
      inner[`${k.slice(0, at)}${k[at] === 'Q' ? 'R' : 'Q'}${k.slice(at + 1)}`] = v;
      return;
    }
    if (e.what === 'add' && i === e.key % keys.length) {
      inner['extraField'] = e.value;
    }
    inner[k] = v;
  });
  if (e.what === 'swap' && entries.length > 1) {
    const [first, ...rest] = Object.entries(inner);
    for (const k of Object.keys(inner)) {
      delete inner[k];
    }
    for (const [k, v] of [...rest, first!]) {
      inner[k] = v;
    }
  }
}

async function read(text: string, reader: NsysJsonReader): Promise<string> {
  try {
    const { trace, warnings } = await importTrace(new TextEncoder().encode(text), {
      fileName: 'mutated.json',
      nsysJsonReader: reader,
    });
    return `${dumpTrace(trace, 1000)}${warnings.join('\n')}`;
  } catch (error) {
    if (error instanceof ImportError) {
      return `error: ${error.message}`;
    }
    throw error;
  }
}

describe('the nsys JSON fast scanner with key templates', () => {
  it('reads randomly edited events exactly as JSON.parse does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 6 }), async (edits) => {
        const events = lines.map((line) => JSON.parse(line) as Json);
        for (const e of edits) {
          mutate(events, e);
        }
        const text = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
        expect(await read(text, 'fast')).toBe(await read(text, 'json-parse'));
      }),
      { numRuns: 80 },
    );
  });

  it('reads CRLF line ends and a byte order mark like plain lines', async () => {
    const text = lines.join('\n') + '\n';
    const crlf = '\uFEFF' + lines.join('\r\n') + '\r\n';
    expect(await read(crlf, 'fast')).toBe(await read(text, 'fast'));
  });
});
