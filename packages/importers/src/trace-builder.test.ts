import { OpKind, RangeKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { newStagedOp } from './op-staging.ts';
import { TraceBuilder } from './trace-builder.ts';

function builderWithKernels(count: number): TraceBuilder {
  const builder = new TraceBuilder({});
  const proc = builder.lanes.processFor('p', 1);
  const lane = builder.lanes.gpuLane(proc, 0, 1, 7);
  const op = newStagedOp();
  for (let i = 0; i < count; i++) {
    // Kernel i spans [1000 + 10 i, 1000 + 10 i + 4) ns in the source's clock.
    op.kind = OpKind.Kernel;
    op.startNs = 1000 + 10 * i;
    op.endNs = op.startNs + 4;
    op.proc = proc;
    op.lane = lane;
    op.nameRef = builder.name(`k${i % 3}`);
    builder.addOp(op);
  }
  return builder;
}

describe('TraceBuilder.build', () => {
  it('moves the staged times to the origin in the columns the trace then holds', () => {
    // 3000 ops: past the staging's first capacity (1024), so its columns have grown.
    const { ops } = builderWithKernels(3000).build();
    expect(ops.count).toBe(3000);
    const { startNs, endNs } = ops.columns();
    expect(startNs.length).toBe(3000);
    expect([startNs[0], endNs[0], startNs[2999], endNs[2999]]).toEqual([0, 4, 29_990, 29_994]);
  });

  it('projects the staging from the bytes read and builds the same ops as one that grew', () => {
    // 3000 ops from the first quarter of a source project 12,000 in all: room for 13,200.
    const projected = builderWithKernels(3000);
    // Not from the first 32nd of a source (its densest part, string tables and first steps).
    const room = projected.opRoom;
    projected.projectOps(31, 1000);
    expect(projected.opRoom).toBe(room);
    projected.projectOps(250, 1000);
    expect(projected.opRoom).toBe(13_200);
    // A projection within the room, and one with nothing read or everything read, change nothing.
    projected.projectOps(500, 1000);
    projected.projectOps(0, 1000);
    projected.projectOps(1000, 1000);
    expect(projected.opRoom).toBe(13_200);
    const grown = builderWithKernels(3000).build().ops.columns();
    const built = projected.build().ops.columns();
    expect(built.startNs.length).toBe(3000);
    expect(built).toEqual(grown);
  });

  it('moves and sizes ops staged in blocks (past the first room) by their index', () => {
    const builder = builderWithKernels(3000);
    const proc = builder.lanes.processFor('q', 2);
    const lane = builder.lanes.gpuLane(proc, 0, 1, 9);
    builder.moveOp(2500, proc, lane);
    builder.setOpBytes(2999, 64, 0);
    const { ops } = builder.build();
    const { bytes, track } = ops.columns();
    expect(bytes[2999]).toBe(64);
    expect(track[2500]).not.toBe(track[2499]);
    expect(track[2499]).toBe(track[0]);
  });

  it('builds once: a second build is refused, since the first released the staging', () => {
    const builder = builderWithKernels(2);
    builder.build();
    expect(() => builder.build()).toThrow(/builds once/);
  });

  it("joins a GPU op staged with a process other than its lane's to that process's API call", () => {
    // Processes a and b each make an API call with correlation id 7. The kernel is drawn on a
    // lane of a but staged as b's: its flow comes from b's call (op 1), as the source said.
    const builder = new TraceBuilder({});
    const a = builder.lanes.processFor('a', 1);
    const b = builder.lanes.processFor('b', 2);
    const op = newStagedOp();
    for (const proc of [a, b]) {
      op.kind = OpKind.ApiCall;
      op.startNs = 100;
      op.endNs = 110;
      op.proc = proc;
      op.lane = builder.lanes.hostLane(proc, 1);
      op.correlationId = 7;
      op.nameRef = builder.name('cudaLaunchKernel');
      builder.addOp(op);
    }
    op.kind = OpKind.Kernel;
    op.startNs = 120;
    op.endNs = 130;
    op.proc = b;
    op.lane = builder.lanes.gpuLane(a, 0, 1, 7);
    op.nameRef = builder.name('k');
    builder.addOp(op);
    const { flows } = builder.build();
    const { fromOp, toOp, count } = flows.columns();
    expect(count).toBe(1);
    expect([fromOp[0], toOp[0]]).toEqual([1, 2]);
  });
});

describe('range depths', () => {
  /** Depth by name of ranges [name, start, end] on one host thread, built as an importer does. */
  function depths(ranges: readonly (readonly [string, number, number])[]): Record<string, number> {
    const builder = builderWithKernels(1);
    const proc = builder.lanes.processFor('p', 1);
    const lane = builder.lanes.hostLane(proc, 11);
    for (const [name, start, end] of ranges) {
      builder.addRange(lane, start, end, builder.name(name), builder.name('x'), RangeKind.PushPop);
    }
    const trace = builder.build();
    const r = trace.ranges.columns();
    return Object.fromEntries(
      Array.from({ length: r.count }, (_, i) => [trace.name(r.nameId[i]!), r.depth[i]!]),
    );
  }

  it('nests ranges that nest, one row each level', () => {
    expect(
      depths([
        ['a', 0, 100],
        ['b', 10, 50],
        ['c', 20, 30],
        ['d', 60, 90],
        ['e', 60, 70],
      ]),
    ).toEqual({ a: 0, b: 1, c: 2, d: 1, e: 2 });
  });

  it('puts a range that outlives the frames it began in below what holds it whole, and its children under it', () => {
    // PyTorch with_stack: ProfilerStep#2 begins inside step() → _transit_action() and outlives
    // both; train_step begins inside record_function.__enter__ and outlives it.
    expect(
      depths([
        ['module', 0, 1000],
        ['step()', 100, 110],
        ['_transit_action', 101, 109],
        ['ProfilerStep#2', 105, 900],
        ['__enter__', 120, 130],
        ['train_step', 125, 800],
        ['forward', 200, 300],
        ['late in __enter__', 126, 128],
      ]),
    ).toEqual({
      module: 0,
      'step()': 1,
      _transit_action: 2,
      // A plain stack put it at 3 (under _transit_action), and everything after it one lower.
      'ProfilerStep#2': 1,
      __enter__: 2,
      train_step: 2,
      forward: 3,
      // Held by __enter__, train_step and ProfilerStep#2 alike: under the deepest of them.
      'late in __enter__': 3,
    });
  });
});
