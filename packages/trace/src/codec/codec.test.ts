import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpKind } from '../op-kind.ts';
import { syntheticTrace } from '../test-traces.ts';
import { Trace } from '../trace.ts';
import { batchHeaderBytes } from './batch-format.ts';
import { CodecError } from './codec-error.ts';
import { TraceDecoder, loadTrace } from './trace-decoder.ts';
import { TraceEncoder, saveTrace, traceChunks } from './trace-encoder.ts';

/** Everything a trace holds, as plain data, for deep comparison. */
function dump(trace: Trace): unknown {
  const ops = trace.ops.columns();
  const flows = trace.flows.columns();
  const ranges = trace.ranges.columns();
  return {
    meta: trace.meta,
    strings: trace.strings.slice(0),
    devices: trace.devices,
    processes: trace.processes,
    tracks: trace.tracks,
    launches: trace.launches.slice(0),
    ops: [
      Array.from(ops.startNs),
      Array.from(ops.endNs),
      Array.from(ops.bytes),
      Array.from(ops.track),
      Array.from(ops.nameId),
      Array.from(ops.correlationId),
      Array.from(ops.refId),
      Array.from(ops.kind),
      Array.from(ops.memKinds),
      Array.from(ops.flags),
    ],
    flows: [Array.from(flows.fromOp), Array.from(flows.toOp), Array.from(flows.kind)],
    ranges: [
      Array.from(ranges.startNs),
      Array.from(ranges.endNs),
      Array.from(ranges.track),
      Array.from(ranges.nameId),
      Array.from(ranges.domainId),
      Array.from(ranges.depth),
      Array.from(ranges.kind),
    ],
  };
}

const maxNs = 2 ** 50;
const arbOp = fc.record({
  startNs: fc.integer({ min: 0, max: maxNs }),
  durNs: fc.integer({ min: 0, max: 2 ** 40 }),
  track: fc.nat(4),
  kind: fc.integer({ min: 0, max: 17 }),
  name: fc.string({ maxLength: 12, unit: 'grapheme' }),
  bytes: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2 ** 52 })),
  memKinds: fc.nat(255),
  correlationId: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 0xffffffff })),
  eventId: fc.oneof(fc.constant(0xffffffff), fc.nat(0xfffffffe)),
  flags: fc.nat(255),
});

/** A random trace with every table populated. */
const arbTrace = fc
  .record({
    ops: fc.array(arbOp, { maxLength: 150 }),
    flows: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(2)), { maxLength: 30 }),
    ranges: fc.array(
      fc.tuple(fc.integer({ min: 0, max: maxNs }), fc.nat(1e9), fc.nat(4), fc.string(), fc.nat(3)),
      { maxLength: 20 },
    ),
    title: fc.string(),
  })
  .map(({ ops, flows, ranges, title }) => {
    const trace = new Trace({ title, originNs: '1700000000000000000' });
    trace.addDevice({ deviceId: 0, name: 'GPU', smCount: 132, priorityRange: [-5, 0] });
    trace.addProcess({ pid: 42, name: 'app' });
    for (let t = 0; t < 5; t++) {
      trace.addTrack(
        t === 0
          ? { kind: 'host-thread', name: 'main', pid: 42, tid: 7 }
          : {
              kind: 'gpu-stream',
              name: '',
              pid: 42,
              deviceId: 0,
              contextId: 1,
              streamId: t,
              streamType: 'blocking',
              priority: -t,
            },
      );
    }
    const launch = trace.launches.intern({
      gridX: 80,
      gridY: 2,
      gridZ: 1,
      blockX: 128,
      blockY: 1,
      blockZ: 1,
      sharedMemBytes: 4096,
      registersPerThread: 64,
    });
    for (const op of ops) {
      trace.addOp({
        startNs: op.startNs,
        endNs: op.startNs + op.durNs,
        track: op.track,
        kind: op.kind,
        nameId: trace.strings.intern(op.name),
        bytes: op.bytes,
        memKinds: op.memKinds,
        correlationId: op.correlationId,
        refId: op.kind === OpKind.Kernel ? launch : op.eventId,
        flags: op.flags,
      });
    }
    const n = trace.ops.count;
    if (n > 0) {
      for (const [a, b, kind] of flows) {
        trace.flows.append(a % n, b % n, kind as 0 | 1 | 2);
      }
    }
    for (const [startNs, durNs, track, name, depth] of ranges) {
      trace.ranges.append({
        startNs,
        endNs: startNs + durNs,
        track,
        nameId: trace.strings.intern(name),
        domainId: trace.strings.intern('app'),
        depth,
        kind: 0,
      });
    }
    return trace;
  });

describe('codec round trips', () => {
  it('loads exactly what it saved, for random traces', () => {
    fc.assert(
      fc.property(arbTrace, (trace) => {
        expect(dump(loadTrace(saveTrace(trace)))).toEqual(dump(trace));
      }),
      { numRuns: 150 },
    );
  });

  it('rebuilds the same trace from live increments as from one file', () => {
    fc.assert(
      fc.property(arbTrace, fc.array(fc.nat(150), { maxLength: 5 }), (full, cuts) => {
        // Replay `full` into a growing trace in random steps, encoding after each step.
        const growing = new Trace(full.meta);
        const encoder = new TraceEncoder(growing);
        const receiver = new TraceDecoder();
        for (const d of full.devices) {
          growing.addDevice(d);
        }
        for (const p of full.processes) {
          growing.addProcess(p);
        }
        for (const t of full.tracks) {
          growing.addTrack(t);
        }
        full.launches.slice(0).forEach((l) => growing.launches.intern(l));
        const ops = full.ops.columns();
        const steps = [...new Set([...cuts.map((c) => Math.min(c, ops.count)), ops.count])].sort(
          (a, b) => a - b,
        );
        let next = 0;
        for (const upTo of steps) {
          for (; next < upTo; next++) {
            growing.addOp({
              startNs: ops.startNs[next]!,
              endNs: ops.endNs[next]!,
              track: ops.track[next]!,
              kind: ops.kind[next]!,
              nameId: growing.strings.intern(full.strings.get(ops.nameId[next]!)),
              bytes: ops.bytes[next]!,
              memKinds: ops.memKinds[next]!,
              correlationId: ops.correlationId[next]!,
              refId: ops.refId[next]!,
              flags: ops.flags[next]!,
            });
          }
          receiver.apply(encoder.encodeNew());
        }
        receiver.apply(encoder.encodeEnd());
        expect(dump(receiver.trace)).toEqual(dump(growing));
      }),
      { numRuns: 60 },
    );
  });

  it('encodes nothing when nothing is new', () => {
    const trace = syntheticTrace(100);
    const encoder = new TraceEncoder(trace);
    expect(encoder.encodeNew().length).toBeGreaterThan(0);
    expect(encoder.encodeNew().length).toBe(0);
  });

  it('writes the same bytes in pieces as in one array, whatever the piece size', () => {
    fc.assert(
      fc.property(arbTrace, fc.integer({ min: 1, max: 400 }), (trace, chunkBytes) => {
        const pieces = [...traceChunks(trace, chunkBytes)];
        expect(Buffer.concat(pieces).equals(Buffer.from(saveTrace(trace)))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('holds about one piece at a time: no piece passes its budget by more than a batch', () => {
    const trace = syntheticTrace(200_000);
    const chunkBytes = 1 << 20;
    const pieces = [...traceChunks(trace, chunkBytes)];
    const whole = saveTrace(trace);
    const biggestBatch = Math.max(...batchSizes(whole));
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThan(chunkBytes + biggestBatch);
    }
    expect(Buffer.concat(pieces).equals(Buffer.from(whole))).toBe(true);
  });

  it('splits large tables into bounded batches and still round-trips', () => {
    const trace = syntheticTrace(100_000);
    const loaded = loadTrace(saveTrace(trace));
    expect(loaded.ops.count).toBe(100_000);
    expect(dump(loaded)).toEqual(dump(trace));
  });
});

describe('codec on bad input', () => {
  const good = saveTrace(syntheticTrace(300));

  it('names the truncation when a file is cut anywhere', () => {
    for (let cut = 0; cut < good.length; cut += 7) {
      let error: unknown;
      try {
        loadTrace(good.subarray(0, cut));
      } catch (e) {
        error = e;
      }
      expect(error, `cut at ${cut}`).toBeInstanceOf(CodecError);
      expect((error as Error).message).toMatch(
        /truncated|runs past the end|buffer ends|empty file/,
      );
    }
  });

  it('throws only CodecError for random corruption, never reading out of bounds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(good.length - 1), fc.nat(255)), { minLength: 1, maxLength: 8 }),
        (edits) => {
          const bad = good.slice();
          for (const [at, value] of edits) {
            bad[at] = value;
          }
          try {
            loadTrace(bad);
          } catch (e) {
            expect(e).toBeInstanceOf(CodecError);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('names the batch, record and field of a bad value', () => {
    const trace = new Trace();
    trace.addTrack({ kind: 'host-thread', name: 't', pid: 1, tid: 1 });
    trace.addOp({ startNs: 5, endNs: 9, track: 0, kind: OpKind.ApiCall, nameId: 0 });
    const bytes = saveTrace(trace);
    // Find the ops batch (kind 5) and corrupt its first record's kind byte.
    let at = 0;
    while (bytes[at + 5] !== 5) {
      at += 16 + new DataView(bytes.buffer).getUint32(at + 12, true);
    }
    const bad = bytes.slice();
    bad[at + 16 + 1] = 99; // payload: firstIndex varint (1 byte), then the kind byte
    expect(() => loadTrace(bad)).toThrow(
      /batch \d+ \(ops\), record 0, field 'kind': unknown op kind 99/,
    );
  });

  it('rejects a batch that repeats records already received', () => {
    const trace = syntheticTrace(50);
    const bytes = new TraceEncoder(trace).encodeNew();
    const decoder = new TraceDecoder();
    decoder.apply(bytes);
    expect(() => decoder.apply(bytes)).toThrow(/gap or a repeat/);
    // The failed batch changed nothing.
    expect(decoder.trace.ops.count).toBe(50);
  });

  it('rejects data that is not a record stream', () => {
    const text = new TextEncoder().encode('{"traceEvents": []}                ');
    expect(() => loadTrace(text)).toThrow(
      /bad magic 0x[0-9a-f]{8} at byte 0 \(not a streamscope record stream/,
    );
  });

  it('detects missing records through the end batch counts', () => {
    const trace = syntheticTrace(10);
    const encoder = new TraceEncoder(trace);
    const body = encoder.encodeNew();
    trace.addOp({ startNs: 1, endNs: 2, track: 0, kind: OpKind.ApiCall, nameId: 0 });
    encoder.encodeNew(); // sent, but "lost" on the way
    const end = encoder.encodeEnd();
    const decoder = new TraceDecoder();
    decoder.apply(body);
    expect(() => decoder.apply(end)).toThrow(/end batch says 11 but 10 were received/);
  });
});

/** The length of each batch of a container (header and payload), in order. */
function batchSizes(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sizes: number[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = batchHeaderBytes + view.getUint32(at + 12, true);
    sizes.push(size);
    at += size;
  }
  return sizes;
}
