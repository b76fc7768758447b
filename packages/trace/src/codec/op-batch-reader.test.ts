import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OpColumns } from '../op-table.ts';
import { syntheticTrace } from '../test-traces.ts';
import type { Trace } from '../trace.ts';
import { batchRuns, bytesFile, readBuffer } from './batch-runs.ts';
import { CodecError } from './codec-error.ts';
import { maxRecordsPerBatch } from './batch-format.ts';
import { OpBatchReader } from './op-batch-reader.ts';
import type { OpBatchRange, RecordBatches } from './record-batches.ts';
import { loadTrace } from './trace-decoder.ts';
import { TraceEncoder, saveTrace } from './trace-encoder.ts';

const runsDir = new URL('../../../../fixtures/runs/', import.meta.url);
const fixtureNames = readdirSync(runsDir).filter((name) => name.endsWith('.sstrace'));

const opFields = [
  'startNs',
  'endNs',
  'bytes',
  'track',
  'nameId',
  'correlationId',
  'refId',
  'kind',
  'memKinds',
  'flags',
] as const;

/** Ops `from` … `to − 1` of what `source` yields, as plain arrays (checking the batches join up). */
function opsOf(source: RecordBatches, range: OpBatchRange = {}): Record<string, number[]> {
  const out: Record<string, number[]> = Object.fromEntries(opFields.map((f) => [f, []]));
  let next = range.fromOp ?? 0;
  for (const { firstIndex, ops } of source.opBatches(range)) {
    expect(firstIndex).toBe(next);
    expect(ops.count).toBeLessThanOrEqual(range.maxOps ?? 65536);
    next += ops.count;
    for (const f of opFields) {
      out[f]!.push(...Array.from(ops[f]));
    }
  }
  return out;
}

function columnsOf(ops: OpColumns, from = 0, to = ops.count): Record<string, number[]> {
  return Object.fromEntries(opFields.map((f) => [f, Array.from(ops[f].subarray(from, to))]));
}

function flowsOf(source: RecordBatches): number[][] {
  const out: number[][] = [];
  for (const { firstIndex, flows } of source.flowBatches()) {
    expect(firstIndex).toBe(out.length);
    for (let i = 0; i < flows.count; i++) {
      out.push([flows.fromOp[i]!, flows.toOp[i]!, flows.kind[i]!]);
    }
  }
  return out;
}

function rangesOf(source: RecordBatches): number[][] {
  const out: number[][] = [];
  for (const { firstIndex, ranges: r } of source.rangeBatches()) {
    expect(firstIndex).toBe(out.length);
    for (let i = 0; i < r.count; i++) {
      out.push([
        r.startNs[i]!,
        r.endNs[i]!,
        r.track[i]!,
        r.nameId[i]!,
        r.domainId[i]!,
        r.depth[i]!,
        r.kind[i]!,
      ]);
    }
  }
  return out;
}

/** The reader of `bytes` yields exactly what `loadTrace` decodes from them. */
async function expectSameAsWhole(bytes: Uint8Array, maxOps?: number): Promise<void> {
  const whole = loadTrace(bytes);
  const reader = await OpBatchReader.open(bytesFile('t.sstrace', bytes));
  const t: Trace = reader.trace;
  expect(t.meta).toEqual(whole.meta);
  expect(t.strings.slice(0, t.strings.count)).toEqual(whole.strings.slice(0, whole.strings.count));
  expect(t.devices).toEqual(whole.devices);
  expect(t.processes).toEqual(whole.processes);
  expect(t.tracks).toEqual(whole.tracks);
  expect(t.launches.slice(0, t.launches.count)).toEqual(
    whole.launches.slice(0, whole.launches.count),
  );
  // The reader keeps no records itself.
  expect(t.ops.count + t.flows.count + t.ranges.count).toBe(0);
  expect(reader.counts).toEqual({
    ops: whole.ops.count,
    flows: whole.flows.count,
    ranges: whole.ranges.count,
  });
  expect(opsOf(reader, maxOps === undefined ? {} : { maxOps })).toEqual(
    columnsOf(whole.ops.columns()),
  );
  const wf = whole.flows.columns();
  expect(flowsOf(reader)).toEqual(
    Array.from({ length: wf.count }, (_, i) => [wf.fromOp[i], wf.toOp[i], wf.kind[i]]),
  );
  const wr = whole.ranges.columns();
  expect(rangesOf(reader)).toEqual(
    Array.from({ length: wr.count }, (_, i) => [
      wr.startNs[i],
      wr.endNs[i],
      wr.track[i],
      wr.nameId[i],
      wr.domainId[i],
      wr.depth[i],
      wr.kind[i],
    ]),
  );
}

/** The error `read` throws (a CodecError), or undefined. */
async function codecErrorOf(read: () => unknown): Promise<CodecError | undefined> {
  try {
    await read();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(CodecError);
    return error as CodecError;
  }
}

/** A trace written as a live run writes it: batches of each kind interleaved as it grows. */
function liveStyleBytes(opCount: number, step: number): Uint8Array {
  const source = syntheticTrace(opCount);
  const live = syntheticTrace(0);
  const encoder = new TraceEncoder(live);
  const parts: Uint8Array[] = [encoder.encodeNew()];
  const ops = source.ops.columns();
  const flows = source.flows.columns();
  let flow = 0;
  for (let i = 0; i < ops.count; i++) {
    if (i % step === 0) {
      // A string and a stream appear mid-run, between op batches.
      live.strings.intern(`late kernel ${i}`);
      parts.push(encoder.encodeNew());
    }
    live.addOp({
      startNs: ops.startNs[i]!,
      endNs: ops.endNs[i]!,
      track: ops.track[i]!,
      kind: ops.kind[i]!,
      nameId: ops.nameId[i]!,
      bytes: ops.bytes[i]!,
      correlationId: ops.correlationId[i]!,
    });
    while (flow < flows.count && flows.toOp[flow]! <= i) {
      live.flows.append(flows.fromOp[flow]!, flows.toOp[flow]!, 1);
      flow++;
    }
  }
  live.ranges.append({
    kind: 0,
    track: 0,
    startNs: 10,
    endNs: 20,
    nameId: 1,
    domainId: 0,
    depth: 0,
  });
  parts.push(encoder.encodeNew(), encoder.encodeEnd());
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

describe('OpBatchReader', () => {
  it.each(fixtureNames)('yields exactly what loadTrace decodes from %s', async (name) => {
    const bytes = new Uint8Array(readFileSync(new URL(name, runsDir)));
    await expectSameAsWhole(bytes);
    await expectSameAsWhole(bytes, 1000);
  });

  // Seconds on a loaded machine: the comparisons go through plain arrays.
  it(
    'yields a multi-batch trace in bounded batches that join up exactly',
    { timeout: 60_000 },
    async () => {
      // 100k ops: 4 stored op batches of up to 32768; batches of 7000 straddle their edges.
      const bytes = saveTrace(syntheticTrace(100_000));
      await expectSameAsWhole(bytes);
      await expectSameAsWhole(bytes, 7000);
      const reader = await OpBatchReader.open(bytesFile('t.sstrace', bytes));
      const whole = loadTrace(bytes).ops.columns();
      // A window across two stored batches, and one inside a single batch.
      for (const [fromOp, toOp] of [
        [maxRecordsPerBatch - 5, maxRecordsPerBatch + 9000],
        [70_000, 70_010],
        [99_990, 200_000],
      ] as const) {
        expect(opsOf(reader, { fromOp, toOp, maxOps: 4096 })).toEqual(
          columnsOf(whole, fromOp, Math.min(toOp, whole.count)),
        );
      }
    },
  );

  it('reads a live run written as it grew (strings and ops batches interleaved)', async () => {
    const bytes = liveStyleBytes(20_000, 1500);
    await expectSameAsWhole(bytes, 999);
  });

  it('refuses a truncated or corrupt file with the error loadTrace gives, naming the file', async () => {
    // Two stored op batches' worth would take long to compare case by case; framing across
    // batches is covered by the cuts of the tests below.
    const bytes = saveTrace(syntheticTrace(3000));
    // Seeded: the same cuts and flips every run.
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const cases: Uint8Array[] = [new Uint8Array(0), bytes.subarray(0, 10)];
    for (let k = 0; k < 40; k++) {
      cases.push(bytes.subarray(0, random(bytes.length)));
      const flipped = bytes.slice();
      const at = random(bytes.length);
      flipped[at] = flipped[at]! ^ (1 << random(8));
      cases.push(flipped);
    }
    const joined = new Uint8Array(bytes.length * 2);
    joined.set(bytes);
    joined.set(bytes, bytes.length);
    cases.push(joined);
    let refused = 0;
    for (const input of cases) {
      const whole = await codecErrorOf(() => loadTrace(input));
      const streamed = await codecErrorOf(async () => {
        const reader = await OpBatchReader.open(bytesFile('cut.sstrace', input));
        opsOf(reader);
      });
      if (whole === undefined) {
        // A flip that leaves a valid trace (a time or a size changed): both read it.
        expect(streamed).toBeUndefined();
        await expectSameAsWhole(input);
        continue;
      }
      refused++;
      expect(streamed?.message).toBe(`cut.sstrace: ${whole.message}`);
      expect(streamed?.byteOffset).toBe(whole.byteOffset);
    }
    expect(refused).toBeGreaterThan(40);
  }, 60_000);

  it("reads a live run's snapshot (no end batch yet, or nothing yet) only when told it is partial", async () => {
    const trace = syntheticTrace(5000);
    const body = new TraceEncoder(trace).encodeNew();
    const reader = await OpBatchReader.open(bytesFile('live', body), { partial: true });
    expect(reader.counts).toEqual({ ops: 5000, flows: trace.flows.count, ranges: 0 });
    expect(opsOf(reader)).toEqual(columnsOf(loadTrace(saveTrace(trace)).ops.columns()));
    const empty = await OpBatchReader.open(bytesFile('live', new Uint8Array(0)), { partial: true });
    expect(empty.counts).toEqual({ ops: 0, flows: 0, ranges: 0 });
    expect([...empty.opBatches()]).toEqual([]);
    const whole = await codecErrorOf(() => loadTrace(body));
    const refused = await codecErrorOf(() => OpBatchReader.open(bytesFile('live', body)));
    expect(refused?.message).toBe(`live: ${whole?.message}`);
    expect(refused?.message).toMatch(/no end batch after 6 batches/);
    const emptyRefused = await codecErrorOf(() =>
      OpBatchReader.open(bytesFile('live', new Uint8Array(0))),
    );
    expect(emptyRefused?.message).toBe('live: empty file: not a streamscope trace');
  });

  it('names the truncation: the batch, and the byte of the file where it is cut', async () => {
    const bytes = saveTrace(syntheticTrace(40_000));
    // Cut 10 bytes into the second stored op batch's records.
    const second = opBatchPayloads(bytes)[1]!;
    const error = await codecErrorOf(() =>
      OpBatchReader.open(bytesFile('big.sstrace', bytes.subarray(0, second + 10))),
    );
    // The payload starts after its 16-byte header; 10 of its bytes are there.
    expect(error?.message).toMatch(
      new RegExp(
        `^big\\.sstrace: batch 5 \\(ops\\): payload of \\d+ bytes runs past the end of the buffer \\(10 left\\) at byte ${second}: truncated$`,
      ),
    );
    expect(error?.byteOffset).toBe(second);
  });

  it('names the file and byte when a file changes under it after it was opened', async () => {
    const bytes = saveTrace(syntheticTrace(40_000));
    const reader = await OpBatchReader.open(bytesFile('moved.sstrace', bytes));
    const whole = loadTrace(bytes);
    // Turn a late op's kind byte into an unknown kind: the second stored op batch's first record.
    // firstIndex 32768 is a 3-byte varint.
    const firstOfSecond = opBatchPayloads(bytes)[1]! + 3;
    bytes[firstOfSecond] = 0xee;
    const error = await codecErrorOf(() => opsOf(reader));
    expect(error?.message).toBe(
      `moved.sstrace: batch 5 (ops), record 0, field 'kind': unknown op kind 238 at byte ${firstOfSecond + 1}`,
    );
    expect(whole.ops.count).toBe(40_000);
  });

  it('grows its buffer for a batch larger than one read, and reads runs of small batches', () => {
    const bytes = saveTrace(syntheticTrace(5000));
    for (const chunk of [64, 1000, 1 << 20]) {
      const seen: number[] = [];
      for (const run of batchRuns(bytesFile('t', bytes), readBuffer(chunk))) {
        expect(run.offset).toBe(seen.reduce((n, b) => n + b, 0));
        seen.push(run.bytes.length);
      }
      expect(seen.reduce((n, b) => n + b, 0)).toBe(bytes.length);
    }
  });
});

/** Where each ops batch's payload starts in a record stream. */
function opBatchPayloads(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  for (let at = 0; at < bytes.length; at += 16 + view.getUint32(at + 12, true)) {
    if (view.getUint8(at + 5) === 5) {
      out.push(at + 16);
    }
  }
  return out;
}
