import { describe, expect, it } from 'vitest';
import { parsePerCall } from './profile-per-call.ts';

describe('parsePerCall', () => {
  it('takes the issue time of a call case and the wall time of the graph case', () => {
    const stdout = [
      'per_call launch issue_us=3.6770 wall_us=5.1000',
      'streamscope profile: wrote per-call.sstrace',
      'per_call query issue_us=0.0580 wall_us=0.0600',
      'per_call graph wall_us=0.8150',
      'per_call broken issue_us=',
    ].join('\n');
    expect([...parsePerCall(stdout)]).toEqual([
      ['launch', 3.677],
      ['query', 0.058],
      ['graph', 0.815],
    ]);
  });

  it('finds nothing in a run that printed no case (a tracer that stopped it)', () => {
    expect(
      parsePerCall('usage: per_call [calls >= 256] [repetitions >= 1] [CASE,...]\n').size,
    ).toBe(0);
  });
});
