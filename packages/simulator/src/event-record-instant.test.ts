import { buildPreset, validateWorkload } from '@streamscope/workload';
import { OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { deviceProfiles } from './profiles.ts';
import { simulate } from './simulation.ts';

describe('event records', () => {
  it('take no GPU time, even when the legacy stream holds them behind its barrier', () => {
    // overlap-blog records its stop event on the legacy stream after four blocking streams'
    // work: the record happens when that work is done, it does not span the run.
    const result = validateWorkload(buildPreset('overlap-blog', { variant: 'breadth-first' }));
    if (!result.ok) {
      throw new Error(JSON.stringify(result.errors));
    }
    const trace = simulate(result.plan, deviceProfiles.c2050);
    const c = trace.ops.columns();
    const records: number[][] = [];
    for (let i = 0; i < c.count; i++) {
      if (c.kind[i] === OpKind.EventRecord) {
        records.push([c.startNs[i]!, c.endNs[i]!]);
      }
    }
    expect(records).toHaveLength(2);
    for (const [startNs, endNs] of records) {
      expect(endNs).toBe(startNs);
    }
    // The stop record comes after every kernel and copy.
    let lastWorkEndNs = 0;
    for (let i = 0; i < c.count; i++) {
      if (c.kind[i]! <= OpKind.Memset) {
        lastWorkEndNs = Math.max(lastWorkEndNs, c.endNs[i]!);
      }
    }
    expect(records[1]![0]).toBeGreaterThanOrEqual(lastWorkEndNs);
  });
});
