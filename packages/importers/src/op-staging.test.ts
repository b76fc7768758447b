import { OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { OpStaging, clearStagedOp, newStagedOp } from './op-staging.ts';

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
