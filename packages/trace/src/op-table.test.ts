import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpKind } from './op-kind.ts';
import type { OpColumns } from './op-table.ts';
import { OpTable } from './op-table.ts';

function opAt(startNs: number, endNs: number, track = 0, correlationId = 0) {
  return { startNs, endNs, track, kind: OpKind.Kernel, nameId: 0, correlationId };
}

describe('OpTable window queries', () => {
  // Track 0: [0,10] [10,20] [30,100] [40,45]   (the 70 ns op makes the look-back 70 ns)
  const table = new OpTable();
  table.append(opAt(0, 10));
  table.append(opAt(10, 20));
  table.append(opAt(30, 100));
  table.append(opAt(40, 45));

  const startsOf = (ops: Uint32Array): number[] =>
    Array.from(ops, (i) => table.columns().startNs[i]!);

  it('includes ops that touch the window at either edge', () => {
    // [20, 30]: the op ending at 20 and the op starting at 30 both touch it.
    expect(startsOf(table.trackOpsInWindow(0, 20, 30))).toEqual([10, 30]);
  });

  it('includes an op that began long before the window and still runs through it', () => {
    // [50, 60] lies inside [30, 100] only.
    expect(startsOf(table.trackOpsInWindow(0, 50, 60))).toEqual([30]);
  });

  it('returns nothing for a window after the last op or on an unknown track', () => {
    expect(table.trackOpsInWindow(0, 101, 200)).toHaveLength(0);
    expect(table.trackOpsInWindow(7, 0, 200)).toHaveLength(0);
  });

  it('returns exactly the overlapping ops for random tables and windows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(10_000), fc.nat(2_000), fc.nat(3)), {
          minLength: 1,
          maxLength: 200,
        }),
        fc.nat(12_000),
        fc.nat(3_000),
        (ops, fromNs, widthNs) => {
          const t = new OpTable();
          for (const [start, dur, track] of ops) {
            t.append(opAt(start, start + dur, track));
          }
          const toNs = fromNs + widthNs;
          const c = t.columns();
          for (let track = 0; track < 4; track++) {
            const got = Array.from(t.trackOpsInWindow(track, fromNs, toNs)).sort((a, b) => a - b);
            const want: number[] = [];
            for (let i = 0; i < c.count; i++) {
              if (c.track[i] === track && c.startNs[i]! <= toNs && c.endNs[i]! >= fromNs) {
                want.push(i);
              }
            }
            expect(got).toEqual(want);
          }
        },
      ),
    );
  });
});

describe('OpTable per-track order', () => {
  it('keeps each track sorted by start even when ops arrive out of order', () => {
    const t = new OpTable();
    t.append(opAt(50, 60, 1));
    t.append(opAt(10, 20, 1));
    t.append(opAt(5, 6, 0));
    t.append(opAt(30, 40, 1));
    const starts = Array.from(t.trackOrder(1), (i) => t.columns().startNs[i]!);
    expect(starts).toEqual([10, 30, 50]);
    expect(Array.from(t.trackOrder(0))).toEqual([2]);
  });
});

describe('OpTable correlation lookup', () => {
  it('finds the API call and the GPU op that share a correlation id, and nothing for 0', () => {
    const t = new OpTable();
    t.append(opAt(0, 1, 0, 7));
    t.append(opAt(0, 1, 0, 3));
    t.append(opAt(2, 3, 1, 7));
    expect(t.findByCorrelation(7)).toEqual([0, 2]);
    expect(t.findByCorrelation(3)).toEqual([1]);
    expect(t.findByCorrelation(4)).toEqual([]);
    expect(t.findByCorrelation(0)).toEqual([]);
    // The index rebuilds after the table grows.
    t.append(opAt(4, 5, 1, 3));
    expect(t.findByCorrelation(3)).toEqual([1, 3]);
  });
});

describe('OpTable growth', () => {
  it('leaves a snapshot taken earlier unchanged while the table grows past its capacity', () => {
    const t = new OpTable();
    for (let i = 0; i < 1000; i++) {
      t.append(opAt(i, i + 1));
    }
    const before = t.columns();
    const copy = Array.from(before.startNs);
    for (let i = 1000; i < 50_000; i++) {
      t.append(opAt(i, i + 1, i % 3));
    }
    expect(before.count).toBe(1000);
    expect(before.startNs).toHaveLength(1000);
    expect(Array.from(before.startNs)).toEqual(copy);
    const after = t.columns();
    expect(after.count).toBe(50_000);
    // Every column of a snapshot has exactly `count` entries: a consistent prefix.
    for (const column of [after.startNs, after.endNs, after.track, after.kind, after.flags]) {
      expect(column).toHaveLength(50_000);
    }
    expect(after.startNs[49_999]).toBe(49_999);
  });

  it('rejects a track index outside uint16', () => {
    const t = new OpTable();
    expect(() => t.append(opAt(0, 1, 70_000))).toThrow('op track 70000 is not a valid track index');
  });
});

describe('OpTable.adoptColumns', () => {
  function columns(count: number, capacity: number): Omit<OpColumns, 'count'> {
    const c = {
      startNs: new Float64Array(capacity),
      endNs: new Float64Array(capacity),
      bytes: new Float64Array(capacity),
      track: new Uint16Array(capacity),
      nameId: new Uint32Array(capacity),
      correlationId: new Uint32Array(capacity),
      refId: new Uint32Array(capacity),
      kind: new Uint8Array(capacity),
      memKinds: new Uint8Array(capacity),
      flags: new Uint8Array(capacity),
    };
    for (let i = 0; i < count; i++) {
      // Track 1 gets ops 1, 3, …; track 0 gets 0, 2, …; op i spans [10 i, 10 i + 5).
      c.track[i] = i % 2;
      c.startNs[i] = 10 * i;
      c.endNs[i] = 10 * i + 5;
      c.kind[i] = OpKind.Kernel;
    }
    return c;
  }

  it('takes the arrays themselves as its columns and indexes their ops by track', () => {
    const source = columns(5, 8);
    const table = new OpTable();
    table.adoptColumns(source, 5);
    expect(table.count).toBe(5);
    expect(table.columns().startNs.buffer).toBe(source.startNs.buffer);
    expect(table.columns().flags.buffer).toBe(source.flags.buffer);
    expect([...table.trackOrder(1)]).toEqual([1, 3]);
    expect(table.maxEndNs).toBe(45);
    // The room past count is growth room: the next op lands there, then growth copies.
    table.append({ startNs: 50, endNs: 55, track: 0, nameId: 0, kind: OpKind.Kernel });
    expect(source.startNs[5]).toBe(50);
    for (let i = 0; i < 4; i++) {
      table.append({ startNs: 60, endNs: 65, track: 1, nameId: 0, kind: OpKind.Kernel });
    }
    expect(table.count).toBe(10);
    expect([...table.trackOrder(0)]).toEqual([0, 2, 4, 5]);
  });

  it('refuses a table that holds ops, a column shorter than the count and a column of another type', () => {
    const table = new OpTable();
    table.append({ startNs: 0, endNs: 1, track: 0, nameId: 0, kind: OpKind.Kernel });
    expect(() => table.adoptColumns(columns(2, 2), 2)).toThrow(/empty op table/);
    const short = { ...columns(3, 3), flags: new Uint8Array(2) };
    expect(() => new OpTable().adoptColumns(short, 3)).toThrow(/holds 2 values, fewer than 3/);
    const wide = { ...columns(3, 3), track: new Uint32Array(3) as unknown as Uint16Array };
    expect(() => new OpTable().adoptColumns(wide, 3)).toThrow(
      /a Uint16Array column cannot take a Uint32Array/,
    );
  });
});
