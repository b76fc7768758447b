import { GapCause } from '@streamscope/timeline';
import { describe, expect, it } from 'vitest';
import { gapTableFrom } from './gap-table.ts';

describe('gapTableFrom', () => {
  it('maps analysis causes to shading classes and drops device-wide gaps', () => {
    const table = gapTableFrom([
      { track: 2, fromNs: 10, toNs: 30, cause: 'event-wait', detail: '', causeOp: -1 },
      { track: -1, fromNs: 0, toNs: 5, cause: 'host-sync', detail: '', causeOp: -1 },
      { track: 0, fromNs: 40, toNs: 90, cause: 'sync-copy', detail: '', causeOp: -1 },
      { track: 1, fromNs: 40, toNs: 90, cause: 'something-new', detail: '', causeOp: -1 },
    ]);
    expect(table.count).toBe(3);
    expect([...table.track]).toEqual([2, 0, 1]);
    expect([...table.cause]).toEqual([GapCause.EventWait, GapCause.HostWait, GapCause.Other]);
    expect([...table.endNs]).toEqual([30, 90, 90]);
  });
});
