import { describe, expect, it } from 'vitest';
import type { TraceEntry } from '../api-types.ts';
import { mergeKeyOf } from './merge-key.ts';

function entry(id: string, more: Partial<TraceEntry> = {}): TraceEntry {
  return {
    id,
    source: 'import',
    title: id,
    status: 'imported',
    createdAt: '2026-01-01T00:00:00.000Z',
    opCount: 1,
    spanNs: 1,
    format: 'chrome-trace',
    ...more,
  };
}

const bytesA = 'a'.repeat(64);
const bytesB = 'b'.repeat(64);

describe('mergeKeyOf', () => {
  it('is the same for the same uploads in another order or under other ids', () => {
    const key = mergeKeyOf(
      [entry('x1', { contentSha256: bytesA }), entry('y1', { contentSha256: bytesB })],
      'job',
    );
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(
      mergeKeyOf(
        [entry('y2', { contentSha256: bytesB }), entry('x2', { contentSha256: bytesA })],
        'job',
      ),
    ).toBe(key);
  });

  it('differs for another title, no title, or other bytes', () => {
    const inputs = [entry('x', { contentSha256: bytesA }), entry('y', { contentSha256: bytesB })];
    const keys = [
      mergeKeyOf(inputs, 'job'),
      mergeKeyOf(inputs, 'job 2'),
      mergeKeyOf(inputs, undefined),
      mergeKeyOf([inputs[0]!, entry('y', { contentSha256: 'c'.repeat(64) })], 'job'),
    ];
    expect(new Set(keys).size).toBe(4);
  });

  it('counts a merged trace by its key and a run by its id', () => {
    const upload = entry('u', { contentSha256: bytesA });
    const merged = (id: string, mergeKey: string): TraceEntry => entry(id, { mergeKey });
    expect(mergeKeyOf([upload, merged('m1', bytesB)], undefined)).toBe(
      mergeKeyOf([upload, merged('m2', bytesB)], undefined),
    );
    const run = (id: string): TraceEntry => entry(id, { source: 'run', status: 'finished' });
    expect(mergeKeyOf([upload, run('r1')], undefined)).not.toBe(
      mergeKeyOf([upload, run('r2')], undefined),
    );
    // A run's id never stands for an upload's bytes or a merge's key of the same text.
    expect(mergeKeyOf([upload, run(bytesB)], undefined)).not.toBe(
      mergeKeyOf([upload, merged('m1', bytesB)], undefined),
    );
  });
});
