import { OpKind, StreamType, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import type { GapItem } from '../api/types.ts';
import { gapDetails } from './gap-details.ts';

function trace(): Trace {
  const t = new Trace();
  t.addDevice({ deviceId: 0, name: '' });
  const stream = (streamId: number): number =>
    t.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId,
      streamType: StreamType.NonBlocking,
      priority: 0,
    });
  const s13 = stream(13);
  const s14 = stream(14);
  t.addOp({
    startNs: 0,
    endNs: 10,
    track: s13,
    kind: OpKind.Kernel,
    nameId: t.strings.intern('a'),
  });
  t.addOp({
    startNs: 0,
    endNs: 90,
    track: s14,
    kind: OpKind.Kernel,
    nameId: t.strings.intern('producer'),
  });
  return t;
}

const gaps: GapItem[] = [
  { track: -1, fromNs: 0, toNs: 5, cause: 'host-busy', detail: 'device idle', causeOp: -1 },
  { track: 0, fromNs: 10, toNs: 90, cause: 'event-wait', detail: 'waits on producer', causeOp: 1 },
];

describe('gap details', () => {
  it('says the cause, the duration and the op the stream waited for', () => {
    // Index 0 of the drawn gaps: the device-wide gap is not drawn on a row.
    expect(gapDetails(trace(), gaps, 0)).toEqual({
      label: 'Gap: event wait',
      cause: 'event-wait',
      track: 'Stream 13',
      startNs: 10,
      durNs: 80,
      detail: 'waits on producer',
      relation: 'waited for',
      waitedFor: { op: 1, name: 'producer', track: 'Stream 14' },
    });
  });

  it('names the launch call of an unknown gap as what launched the op, not what it waited for', () => {
    const unknown: GapItem[] = [
      { track: 0, fromNs: 10, toNs: 90, cause: 'unknown', detail: 'cause unknown', causeOp: 1 },
    ];
    const d = gapDetails(trace(), unknown, 0)!;
    // One word for it: the legend's label says "unknown" as analysis' cause does.
    expect(d.label).toBe('Gap: unknown');
    expect(d.cause).toBe('unknown');
    expect(d.relation).toBe('launched by');
  });

  it('is null past the drawn gaps', () => {
    expect(gapDetails(trace(), gaps, 1)).toBeNull();
  });
});
