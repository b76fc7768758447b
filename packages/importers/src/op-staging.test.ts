import { OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { OpLimitReached, OpStaging, clearStagedOp, newStagedOp } from './op-staging.ts';

describe('OpStaging event ids', () => {
  it('gives back the event and sync ids of the ops that have them and NaN for the rest', () => {
    const staging = new OpStaging();
    const op = newStagedOp();
    // 5000 ops (past the first capacity, 1024); every 7th is an event record with id i / 7 and
    // sync id i, and op 4999 has a sync id alone.
    for (let i = 0; i < 5000; i++) {
      clearStagedOp(op);
      op.kind = i % 7 === 0 ? OpKind.EventRecord : OpKind.Kernel;
      if (i % 7 === 0) {
        op.eventId = i / 7;
        op.eventSyncId = i;
      }
      if (i === 4999) {
        op.eventSyncId = 12;
      }
      staging.add(op);
    }
    expect([staging.eventId(0), staging.eventSyncId(0)]).toEqual([0, 0]);
    expect([staging.eventId(4991), staging.eventSyncId(4991)]).toEqual([713, 4991]);
    expect(staging.eventId(1)).toBeNaN();
    expect(staging.eventSyncId(4997)).toBeNaN();
    expect(staging.eventId(4999)).toBeNaN();
    expect(staging.eventSyncId(4999)).toBe(12);
    expect(staging.eventId(6000)).toBeNaN();
  });
});

describe('OpStaging.fit', () => {
  it('shrinks columns a reservation overshot to the ops staged, and leaves a close one alone', () => {
    const staging = new OpStaging();
    staging.reserve(100_000);
    const op = newStagedOp();
    for (let i = 0; i < 3000; i++) {
      op.startNs = i;
      staging.add(op);
    }
    staging.fit();
    // 97,000 spare slots of 100,000: cut to the 3000 ops, values kept.
    expect(staging.startNs.data.length).toBe(3000);
    expect(staging.kind.data.length).toBe(3000);
    expect(staging.startNs.data[2999]).toBe(2999);
    // 100 spare of 3100 (under an eighth of the ops): kept as it is.
    const close = new OpStaging();
    close.reserve(3100);
    for (let i = 0; i < 3000; i++) {
      close.add(op);
    }
    close.fit();
    expect(close.startNs.data.length).toBe(3100);
  });
});

describe('OpStaging blocks', () => {
  it('grows past its room by blocks and joins them into one array of the ops, in order', () => {
    const staging = new OpStaging();
    const op = newStagedOp();
    // 1024 + 1024 + 2048 + 4096 slots hold 5000 ops in four blocks, nothing copied on the way.
    for (let i = 0; i < 5000; i++) {
      op.startNs = i;
      op.kind = i % 7;
      op.nameRef = -(i + 1);
      staging.add(op);
    }
    staging.join();
    expect(staging.startNs.data.length).toBe(5000);
    expect(staging.kind.data.length).toBe(5000);
    for (const i of [0, 1023, 1024, 2047, 2048, 4095, 4096, 4999]) {
      expect([staging.startNs.data[i], staging.kind.data[i], staging.nameRef.data[i]]).toEqual([
        i,
        i % 7,
        -(i + 1),
      ]);
    }
    // Joined, it grows on by blocks again; fit joins them as well.
    for (let i = 5000; i < 7000; i++) {
      op.startNs = i;
      staging.add(op);
    }
    staging.fit();
    expect(staging.startNs.data.length).toBe(7000);
    expect(staging.startNs.data[4999]).toBe(4999);
    expect(staging.startNs.data[6999]).toBe(6999);
  });

  it('grows by blocks of at most 64k ops past 64k', () => {
    const staging = new OpStaging();
    const op = newStagedOp();
    // 1024 + 1024 + … + 32768 + 65536 + 65536 slots: 200,000 ops fill blocks up to 262,144.
    for (let i = 0; i < 200_000; i++) {
      op.startNs = i;
      staging.add(op);
    }
    expect(staging.room).toBe(262_144);
    staging.join();
    expect(staging.startNs.data.length).toBe(200_000);
    expect([staging.startNs.data[65_535], staging.startNs.data[131_072]]).toEqual([
      65_535, 131_072,
    ]);
    expect(staging.startNs.data[199_999]).toBe(199_999);
  });

  it('joins its blocks before a reservation copies the columns', () => {
    const staging = new OpStaging();
    const op = newStagedOp();
    for (let i = 0; i < 3000; i++) {
      op.startNs = i;
      staging.add(op);
    }
    staging.reserve(10_000);
    expect(staging.room).toBe(10_000);
    expect(staging.startNs.data.length).toBe(10_000);
    expect([staging.startNs.data[1500], staging.startNs.data[2999]]).toEqual([1500, 2999]);
  });
});

describe('OpStaging.maxOps', () => {
  it('holds exactly its limit; the op past it is OpLimitReached, however the room was sized', () => {
    for (const reserve of [0, 10, 1_000_000]) {
      const staging = new OpStaging();
      staging.maxOps = 3000;
      staging.reserve(reserve);
      expect(staging.room).toBeLessThanOrEqual(3000);
      const op = newStagedOp();
      for (let i = 0; i < 3000; i++) {
        op.startNs = i;
        staging.add(op);
      }
      expect(() => staging.add(op)).toThrow(OpLimitReached);
      expect(staging.count).toBe(3000);
      staging.join();
      expect(staging.startNs.data[2999]).toBe(2999);
    }
  });

  it('cannot be set below the ops staged', () => {
    const staging = new OpStaging();
    staging.add(newStagedOp());
    staging.add(newStagedOp());
    expect(() => {
      staging.maxOps = 1;
    }).toThrow(/below the 2 ops staged/);
  });
});
