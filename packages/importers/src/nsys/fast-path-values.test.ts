import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dumpTrace } from '../dump-trace.ts';
import { ImportError } from '../import-error.ts';
import { importTrace } from '../import-trace.ts';
import { readFixture } from '../test-support.ts';
import type { NsysJsonReader } from './nsys-json.ts';

// The fast scanner against JSON.parse on the values, key orders and chunkings that the scanner
// either reads itself or must hand over: both readers must build the same trace (or fail with
// the same error) for every input.

const lines = new TextDecoder()
  .decode(readFixture('nsys/older/layout-a-2021.json'))
  .split('\n')
  .filter((line) => line !== '');

type Json = Record<string, unknown>;

async function read(
  bytes: Uint8Array | AsyncIterable<Uint8Array>,
  reader: NsysJsonReader,
): Promise<string> {
  try {
    const { trace, warnings } = await importTrace(bytes, {
      fileName: 'edited.json',
      nsysJsonReader: reader,
    });
    return `${dumpTrace(trace, 1000)}${warnings.join('\n')}`;
  } catch (error) {
    if (error instanceof ImportError) {
      return `error: ${error.message} (line ${error.line ?? '-'}, ${error.field ?? '-'})`;
    }
    throw error;
  }
}

async function expectSameReading(text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  expect(await read(bytes, 'fast')).toBe(await read(bytes, 'json-parse'));
}

/** The innermost objects of an event: the message and its sub-object (kernel, memcpy, …). */
function objectsOf(event: Json): Json[] {
  const found: Json[] = [];
  for (const value of Object.values(event)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      found.push(value as Json, ...objectsOf(value as Json));
    }
  }
  return found;
}

/** Values a protobuf writer would not produce but a JSON file may hold. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -1_000_000, max: 4_000_000_000 }),
  fc.integer({ min: -1_000_000, max: 4_000_000_000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String),
  fc.constantFrom('-', '', '007', '-0', '-7', '1e3', '1E+2', ' 1', '+1', '0x10', '٣'),
  fc.constantFrom(0.5, -0, 1e21, 2 ** 53, 2 ** 53 + 2, -(2 ** 60), 123456789012345680000),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('a"b', 'back\\slash', 'tab\there', 'line\nbreak', 'é', '€', '𝄞', '\u0000'),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.constantFrom('gridX', 'x', 'startNs', 'Type'), fc.nat(), { maxKeys: 2 }),
);

const valueEdit = fc.record({ line: fc.nat(), object: fc.nat(), key: fc.nat(), value: oddValue });

function setValue(
  events: Json[],
  e: { line: number; object: number; key: number; value: unknown },
): void {
  const objects = objectsOf(events[e.line % events.length]!);
  if (objects.length === 0) {
    return;
  }
  const target = objects[e.object % objects.length]!;
  const keys = Object.keys(target);
  if (keys.length > 0) {
    target[keys[e.key % keys.length]!] = e.value;
  }
}

/** The same object with its keys in another order (JSON.parse reads keys in any order). */
function reorder(value: Json, seed: number): Json {
  const entries = Object.entries(value);
  const out: Json = {};
  for (let k = 0; k < entries.length; k++) {
    const [key, v] = entries[(k * 7 + seed) % entries.length]!;
    out[key] =
      typeof v === 'object' && v !== null && !Array.isArray(v) ? reorder(v as Json, seed + 1) : v;
  }
  // (k * 7 + seed) mod n visits every index only when gcd(7, n) = 1: fill in any key missed
  for (const [key, v] of entries) {
    if (!(key in out)) {
      out[key] = v;
    }
  }
  return out;
}

async function* inChunks(bytes: Uint8Array, sizes: readonly number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  let k = 0;
  while (at < bytes.length) {
    const size = sizes[k++ % sizes.length]!;
    await Promise.resolve();
    yield bytes.slice(at, at + size);
    at += size;
  }
}

describe('the nsys JSON fast path reads values as JSON.parse does', () => {
  it('reads negative, fractional, exponent, big, quoted and non-numeric values alike', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(valueEdit, { minLength: 1, maxLength: 4 }), async (edits) => {
        const events = lines.map((line) => JSON.parse(line) as Json);
        for (const e of edits) {
          setValue(events, e);
        }
        await expectSameReading(events.map((e) => JSON.stringify(e)).join('\n') + '\n');
      }),
      { numRuns: 150 },
    );
  });

  it('reads keys in any order alike', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(1000), async (seed) => {
        const text = lines
          .map((line, i) => JSON.stringify(reorder(JSON.parse(line) as Json, seed + i)))
          .join('\n');
        await expectSameReading(text + '\n');
      }),
      { numRuns: 40 },
    );
  });

  it('reads edited records cut across chunk boundaries as the whole file', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(valueEdit, { maxLength: 3 }),
        fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 6 }),
        async (edits, sizes) => {
          const events = lines.map((line) => JSON.parse(line) as Json);
          for (const e of edits) {
            setValue(events, e);
          }
          const bytes = new TextEncoder().encode(
            events.map((e) => JSON.stringify(e)).join('\n') + '\n',
          );
          expect(await read(inChunks(bytes, sizes), 'fast')).toBe(await read(bytes, 'json-parse'));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads escaped and non-ASCII strings in names, NVTX texts and keys alike', async () => {
    const strings = ['', 'caf\u00e9Kernel', 'k\\"quoted\\"', 'tab\\there', '\\u00e9t\\u00e9'];
    const text = [
      `{"data":[${strings.map((s) => `"${s}"`).join(',')}]}`,
      '{"Type":48,"TraceProcessEvent":{"startNs":"1","endNs":"5","correlationId":1,"eventClass":0,"name":"1","globalTid":"281491770704873"}}',
      '{"Type":79,"CudaEvent":{"startNs":"6","endNs":"9","correlationId":1,"deviceId":0,"contextId":"1","streamId":"7","globalPid":"281491770703872","kernel":{"demangledName":"2","mangledName":"_Z\\u00e9\\n"}}}',
      '{"Type":59,"NvtxEvent":{"Type":59,"Timestamp":"2","EndTimestamp":"4","Text":"r\\u00e9gion \\"a\\" \u20ac","GlobalTid":"281491770704873"}}',
      '{"Type":59,"NvtxEvent":{"Type":59,"Timestamp":"3","EndTimestamp":"4","Text":"\ud834\udd1e music","GlobalTid":"281491770704873"}}',
      '{"Type":79,"CudaEvent":{"st\\u0061rtNs":"7","endNs":"8","correlationId":2,"deviceId":0,"contextId":"1","streamId":"7","globalPid":"281491770703872","kernel":{"demangledName":"3"}}}',
      '{"Type":79,"CudaEvent":{"startNs":"7","endNs":"8","correlationId":2,"deviceId":0,"contextId":"1","streamId":"7","globalPid":"281491770703872","kernel":{"d\u00e9mangledName":"3","shortName":"4"}}}',
    ].join('\n');
    await expectSameReading(text + '\n');
  });
});

describe('the nsys JSON fast path hands malformed lines to JSON.parse', () => {
  const event = (kernel: string, extra = ''): string =>
    `{"Type":79,"CudaEvent":{"startNs":"6","endNs":"9","correlationId":1,"deviceId":0,"contextId":"1","streamId":"7","globalPid":"281491770703872"${extra},"kernel":{${kernel}}}}`;
  const cases: readonly [string, string][] = [
    ['a read number with a leading zero', event('"gridX":01')],
    ['a skipped number with a leading zero', event('"gridX":1,"localMemoryTotal":01')],
    ['a number that is only a sign', event('"gridX":-')],
    ['a number with a plus sign', event('"gridX":+1')],
    ['a fraction without digits', event('"gridX":1.')],
    ['an exponent without digits', event('"localMemoryTotal":1e')],
    ['a skipped value that is no JSON', event('"launched":abc')],
    ['a misspelt literal', event('"launched":tru')],
    ['a literal run on into other letters', event('"launched":nullx')],
    ['a raw tab inside a skipped string', event('"mangledName":"a\tb"')],
    ['a raw tab inside a read string', event('"demangledName":"a\tb"')],
    ['a bad escape', event('"mangledName":"a\\qb"')],
    ['a missing value', event('"gridX":,"gridY":1')],
    ['a missing colon', event('"gridX" 1')],
    ['a trailing comma', event('"gridX":1,')],
    ['text after the record', `${event('"gridX":1')}x`],
    ['a second record on the line', `${event('"gridX":1')}${event('"gridX":2')}`],
    ['a read key given twice', event('"gridX":1,"gridX":2')],
    ['a read time given twice', event('"gridX":1', ',"startNs":"7"')],
    ['a boolean where a number is read', event('"gridX":true')],
    ['a quoted sign alone where a time is read', event('"gridX":1', ',"endNs":"-"')],
  ];
  for (const [what, line] of cases) {
    it(`reads ${what} as JSON.parse does`, async () => {
      await expectSameReading(`{"data":["","k"]}\n${line}\n`);
      // …also when the line follows others of its type, so that it is matched against a template
      await expectSameReading(`{"data":["","k"]}\n${event('"gridX":1')}\n${line}\n`);
    });
  }

  it('names the line of invalid UTF-8 inside a skipped string', async () => {
    const head = new TextEncoder().encode(`{"data":["","k"]}\n${event('"mangledName":"a')}`);
    const tail = new TextEncoder().encode(`b"}}}\n`);
    const bytes = new Uint8Array([...head, 0xff, 0xfe, ...tail]);
    expect(await read(bytes, 'fast')).toBe(
      'error: edited.json, line 2: invalid UTF-8 in this line (line 2, -)',
    );
    // the JSON.parse reader decodes whole chunks, so it can only tell where the bad chunk starts
    expect(await read(bytes, 'json-parse')).toMatch(/^error: .*invalid UTF-8 at or after/);
  });
});
