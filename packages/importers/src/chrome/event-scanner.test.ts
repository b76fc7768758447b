import { readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../import-error.ts';
import { importTrace } from '../import-trace.ts';
import { fixturePath, readFixture } from '../test-support.ts';
import type { ChromeEvent } from './chrome-event.ts';
import { JsonEventSplitter } from './json-splitter.ts';
import { spanWays } from './key-spans.ts';
import { warmUpShapes } from './scanner-warm-up.ts';
import type { Micros } from './micros.ts';
import { MicrosRead, readMicros } from './micros.ts';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * A time as EventTimes takes it: what the scanner read in passing, else readMicros of its bytes
 * (JSON.parse'd events always the latter), so the two paths must agree to the ns.
 */
function micros(e: ChromeEvent, at: number, end: number, us: number, ns: number): unknown {
  if (us >= 0) {
    return [us, ns];
  }
  if (at < 0 || e.bytes[at] === 0x22) {
    return null;
  }
  const out: Micros = { us: 0, ns: 0, negative: false };
  return readMicros(e.bytes, at, end, out) === MicrosRead.Ok && !out.negative
    ? [out.us, out.ns]
    : null;
}

/** What the importer reads of an event: every field, ts and dur as their JSON text and value. */
function snapshot(e: ChromeEvent): Record<string, unknown> {
  const text = (at: number, end: number): string | null =>
    at < 0 ? null : decoder.decode(e.bytes.subarray(at, end));
  return {
    tsMicros: micros(e, e.tsAt, e.tsEnd, e.tsUs, e.tsNs),
    durMicros: micros(e, e.durAt, e.durEnd, e.durUs, e.durNs),
    ph: e.ph,
    cat: e.cat,
    name: e.name,
    pid: e.pid,
    tid: e.tid,
    ts: text(e.tsAt, e.tsEnd),
    dur: text(e.durAt, e.durEnd),
    device: e.device,
    stream: e.stream,
    context: e.context,
    correlation: e.correlation,
    bytes: e.bytesArg,
    size: e.size,
    recordCorrelation: e.recordCorrelation,
    sharedMemory: e.sharedMemory,
    registers: e.registers,
    grid: [e.gridX, e.gridY, e.gridZ],
    block: [e.blockX, e.blockY, e.blockZ],
    // An arg not kept above, read on demand (kineto's callback id).
    cbid: e.otherArg('cbid'),
  };
}

type Outcome = { events: Record<string, unknown>[] } | { error: string };

/** Splits `bytes` (in chunks of `chunkBytes`) with the scanner or with JSON.parse alone. */
function split(bytes: Uint8Array, fast: boolean, chunkBytes = bytes.length): Outcome {
  const events: Record<string, unknown>[] = [];
  const splitter = new JsonEventSplitter(
    't.json',
    { event: (e) => events.push(snapshot(e)), topValue: () => undefined },
    new Set(),
    { fast },
  );
  try {
    for (let at = 0; at < bytes.length; at += chunkBytes) {
      splitter.push(bytes.subarray(at, at + chunkBytes));
    }
    splitter.end();
  } catch (error) {
    if (error instanceof ImportError) {
      return { error: error.message };
    }
    throw error;
  }
  return { events };
}

function traceOf(events: readonly string[]): Uint8Array {
  return encoder.encode(`{"traceEvents":[\n${events.join(',\n')}\n]}`);
}

function expectSame(bytes: Uint8Array, chunkBytes?: number): Outcome {
  const slow = split(bytes, false, chunkBytes);
  expect(split(bytes, true, chunkBytes)).toEqual(slow);
  return slow;
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const kineto = readdirSync(fixturePath('kineto')).filter((f) => f.endsWith('.json.gz'));
const plain = [
  ...readdirSync(fixturePath('kineto'))
    .filter((f) => f.endsWith('.json') && f !== 'recorded-counts.json')
    .map((f) => `kineto/${f}`),
  ...readdirSync(fixturePath('chrome'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `chrome/${f}`),
];

describe('the event scanner reads every event as JSON.parse does', () => {
  it.each(kineto)(
    'on the recorded kineto/%s, in one chunk and in 4 KiB chunks',
    (file) => {
      const bytes = new Uint8Array(gunzipSync(readFixture(`kineto/${file}`)));
      const whole = expectSame(bytes);
      expect('events' in whole && whole.events.length).toBeGreaterThan(100);
      expectSame(bytes, 4096);
    },
    30_000,
  );

  it.each(plain)('on %s', (file) => {
    expectSame(readFixture(file));
    expectSame(readFixture(file), 97);
  });

  it('on 3000 mutated kineto events: escapes, spaces, number forms, duplicate keys, bad bytes', () => {
    const text = decoder.decode(gunzipSync(readFixture('kineto/train.pt.trace.json.gz')));
    const events = (JSON.parse(text) as { traceEvents: unknown[] }).traceEvents.map((e) =>
      JSON.stringify(e),
    );
    expect(events.length).toBeGreaterThan(1000);
    const mutations: ((event: string, r: () => number) => string)[] = [
      (e) => e.replace(/":/g, '" : ').replace(/,"/g, ' ,\t"'),
      (e) =>
        e.replace(/"name":"(.)/, (_, c: string) => `"name":"\\u00${c.charCodeAt(0).toString(16)}`),
      (e) => e.replace(/"name":"/, '"name":"é'),
      (e) => e.replace(/"name":"/, '"name":"\u0001'),
      (e) => e.replace(/"pid":(\d+)/, '"pid":$1.0'),
      (e) => e.replace(/"tid":(\d+)/, '"tid":$1e0'),
      (e) => e.replace(/"correlation":(\d+)/, '"correlation":"$1"'),
      (e) => e.replace(/"correlation":(\d+)/, '"correlation":-0'),
      (e) => e.replace(/"device":(\d+)/, '"device":1e999'),
      (e) => e.replace(/"stream":(\d+)/, '"stream":12345678901234567890'),
      (e) => e.replace(/"grid":\[/, '"grid":[[1],'),
      (e) => e.replace(/"block":\[(\d+)/, '"block":[null'),
      (e) => e.replace(/^\{/, '{"name":"first",'),
      (e) => e.replace(/\}$/, ',"ph":"B"}'),
      (e) => e.replace(/"args":\{/, '"args":{"stream":3,'),
      (e) => e.replace(/\}\}$/, ',"args":{"device":9}}'),
      (e) => e.replace(/"ts":([\d.]+)/, '"ts":"$1"'),
      (e) => e.replace(/"dur":([\d.]+)/, '"dur":[$1]'),
      (e) => e.replace(/"dur":([\d.]+)/, '"dur":01'),
      (e) => e.replace(/"ts":([\d.]+)/, '"ts":$1e-0'),
      (e) => e.replace(/,"/, ',,"'),
      (e) => e.replace(/"cat":"[^"]*"/, '"cat":true'),
      (e, r) => e.slice(0, Math.floor(r() * e.length)),
      (e, r) => {
        const at = Math.floor(r() * e.length);
        return e.slice(0, at) + e.slice(at + 1);
      },
      (e, r) => {
        const at = Math.floor(r() * e.length);
        return `${e.slice(0, at)}${String.fromCharCode(Math.floor(r() * 128))}${e.slice(at)}`;
      },
    ];
    const r = random(22);
    const mutated: string[] = [];
    const originals: string[] = [];
    for (let k = 0; k < 3000; k++) {
      const event = events[Math.floor(r() * events.length)]!;
      const mutate = mutations[k % mutations.length]!;
      originals.push(event);
      mutated.push(mutate(event, r));
    }
    // Each on its own (most of them bad), then the valid ones together in small chunks.
    let valid = 0;
    const good: string[] = [];
    for (const event of mutated) {
      const outcome = expectSame(traceOf([event]));
      if ('events' in outcome) {
        valid++;
        good.push(event);
      }
    }
    expect(valid).toBeGreaterThan(1000);
    expectSame(traceOf(good), 333);
    // After events of the same shape, so that the scanner predicts the mutated event's gaps
    // (`,"cat":`, `}`) from its unmutated twins and must notice where it differs from them.
    for (let k = 0; k < mutated.length; k++) {
      const twin = originals[k]!;
      expectSame(traceOf([twin, twin, twin, mutated[k]!]));
    }
  }, 60_000);

  it('reads runs of repeated keys (spans) as JSON.parse does where their values change', () => {
    const event = (cat: string, pid: number, tid: number, extra = ''): string =>
      `{"ph":"X","cat":"${cat}","name":"op ${pid}","pid":${pid},"tid":${tid},"ts":${pid}.5,"dur":0.25${extra}}`;
    const events: string[] = [];
    for (let k = 0; k < 200; k++) {
      // More kinds and threads taking turns than spans are kept for each place.
      const kind = k % (spanWays + 2);
      events.push(event(`cat${kind}`, 1, 10 + kind));
      events.push(event('cpu_op', 1, 10 + kind));
    }
    events.push(event('cpu_op', 1, 10), event('cpu_op', 2, 10), event('cpu_op', 1, 11));
    events.push(event('cpu_op', 1, 10, ',"pid":3'), event('cpu_op', 1, 10, ',"cat":"x"'));
    events.push(event('cpu_op', 1, 10).replace('"ph":"X"', '"ph":"B"'));
    events.push(event('cpu_op', 1, 10).replace('"tid":10', '"tid":"10"'));
    const outcome = expectSame(traceOf(events));
    expect('events' in outcome && outcome.events.slice(-7)).toMatchObject([
      { cat: 'cpu_op', pid: 1, tid: 10 },
      { cat: 'cpu_op', pid: 2, tid: 10, tsMicros: [2, 500], durMicros: [0, 250] },
      { cat: 'cpu_op', pid: 1, tid: 11 },
      { pid: 3 },
      { cat: 'x' },
      { ph: 'B' },
      { tid: '10' },
    ]);
    expectSame(traceOf(events), 50);
  });

  it('reads the shapes it is warmed up with as JSON.parse does', () => {
    const outcome = expectSame(traceOf([...warmUpShapes, ...warmUpShapes]));
    expect('events' in outcome && outcome.events).toHaveLength(warmUpShapes.length * 2);
  });

  it('reads times in passing exactly as EventTimes would from their bytes', () => {
    const times = ['0', '7', '0.5', '1.25', '12.3456', '0.9995', '999999999999999.9999', '1e3'];
    times.push('4460266250047.376', '1234567890123456', '01', '5.', '-1.5', '2E-3', '3.0001');
    times.push('12345678', '90817263.5', '123456789.123', '9999.9995', '0123', '1234e1');
    const events = times.map((t) => `{"ph":"X","cat":"c","name":"n","ts":${t},"dur":${t}}`);
    for (const event of events) {
      expectSame(traceOf([event, event]));
    }
    const outcome = expectSame(traceOf(events.slice(0, 7)));
    expect('events' in outcome && outcome.events.map((e) => e['tsMicros'])).toEqual([
      [0, 0],
      [7, 0],
      [0, 500],
      [1, 250],
      [12, 346],
      [1, 0],
      [1000000000000000, 0],
    ]);
  });

  it('reads events with many distinct keys, long keys and long gaps as JSON.parse does', () => {
    const kernel = (args: string, space = ''): string =>
      `{"ph":"X",${space}"cat":"kernel","name":"k","pid":0,"tid":7,"ts":5,"dur":1,"args":{${args}"stream":7,"correlation":1}}`;
    const events: string[] = [];
    for (let k = 0; k < 300; k++) {
      // 300 distinct keys (more than get ids), a key longer than any gap kept, much space.
      events.push(kernel(`"key ${k}":${k},`));
      events.push(kernel(`"${'x'.repeat(80 + k)}":1,`, ' '.repeat(k % 90)));
      events.push(kernel(`"stream":${k},`)); // a kept key given twice
      events.push(kernel(''));
    }
    const outcome = expectSame(traceOf(events));
    expect('events' in outcome && outcome.events[0]).toMatchObject({ stream: 7, correlation: 1 });
    expectSame(traceOf(events), 61);
  });
});

describe('hostile events get what JSON.parse gives them', () => {
  const kernel = (extra: string): string =>
    `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5,"dur":1,"args":{"stream":7,"correlation":1${extra}}}`;

  async function imported(events: readonly string[], chunkBytes = 1 << 20) {
    const bytes = traceOf(events);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += chunkBytes) {
      chunks.push(bytes.subarray(at, at + chunkBytes));
    }
    return importTrace(Readable.from(chunks) as AsyncIterable<Uint8Array>, {
      fileName: 'hostile.json',
    });
  }

  it('reads 100,000 levels of nesting in an event as JSON.parse does, without a stack overflow', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expectSame(traceOf([kernel(`,"deep":${deep}`)]));
    const { trace } = await imported([kernel(`,"deep":${deep}`)]);
    expect(trace.ops.count).toBe(1);
    const unclosed = `${'['.repeat(100_000)}${']'.repeat(99_999)}`;
    const error = await imported([kernel(`,"deep":${unclosed}`)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).path).toBe('traceEvents[0]');
  });

  it('reads a 4 MB name across chunks, exactly', () => {
    const name = 'x'.repeat(4 << 20);
    const outcome = expectSame(
      traceOf([kernel('').replace('"name":"k"', `"name":"${name}"`)]),
      65_536,
    );
    expect(outcome).toMatchObject({ events: [{ name }] });
  });

  it('refuses invalid UTF-8 in a string no field reads, naming the event', async () => {
    const bytes = traceOf([kernel(''), kernel(',"note":"ab"')]);
    const at = decoder.decode(bytes).lastIndexOf('ab');
    bytes[at] = 0xff;
    expect(split(bytes, true)).toEqual(split(bytes, false));
    const error = await importTrace(bytes, { fileName: 'utf8.json' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ path: 'traceEvents[1]' });
    expect((error as Error).message).toMatch(/invalid UTF-8/);
  });

  it('refuses a raw control byte in a string, naming the event and byte', async () => {
    const error = await imported([kernel(',"note":"a\tb"')]).catch((e: unknown) => e);
    expect(error).toMatchObject({ path: 'traceEvents[0]' });
    expect((error as Error).message).toMatch(/not valid JSON near byte \d+/);
  });

  it('reads numbers like 1e999 as JSON.parse does: an absurd ts is refused by name', async () => {
    expectSame(traceOf([kernel(',"device":1e999').replace('"pid":0', '"pid":1e999')]));
    const error = await imported([kernel('').replace('"ts":5', '"ts":1e999')]).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ path: 'traceEvents[0].ts' });
    expect((error as Error).message).toMatch(/ts must be below 2\^53 µs .*got 1e999/);
  });

  it('keeps the last of a key given twice, as JSON.parse does', () => {
    const outcome = expectSame(
      traceOf([kernel(',"stream":9').replace('"name":"k"', '"name":"first","name":"last"')]),
    );
    expect(outcome).toMatchObject({ events: [{ name: 'last', stream: 9 }] });
  });

  it('decodes escapes in names', () => {
    const outcome = expectSame(traceOf([kernel('').replace('"name":"k"', '"name":"\\u006b\\"1"')]));
    expect(outcome).toMatchObject({ events: [{ name: 'k"1' }] });
  });
});
