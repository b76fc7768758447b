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
