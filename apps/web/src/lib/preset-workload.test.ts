import { PresetError, validateWorkload } from '@streamscope/workload';
import { describe, expect, it } from 'vitest';
import { presetWorkload } from './preset-workload.ts';

describe('presetWorkload', () => {
  it('builds the overlap-blog variant the picker chose, as a spec the validator accepts', () => {
    const depth = presetWorkload('overlap-blog', { variant: 'depth-first', streams: 2 });
    const breadth = presetWorkload('overlap-blog', { variant: 'breadth-first', streams: 2 });
    expect(depth.origin).toBe('preset overlap-blog (variant=depth-first, streams=2)');
    expect(validateWorkload(JSON.parse(JSON.stringify(depth.workload))).ok).toBe(true);
    expect(JSON.stringify(depth.workload)).not.toBe(JSON.stringify(breadth.workload));
  });

  it('leaves empty picker fields to the preset defaults', () => {
    const built = presetWorkload('pinned-vs-pageable', {
      chunks: undefined,
      hostMemory: 'pageable',
    });
    expect(built.origin).toBe('preset pinned-vs-pageable (hostMemory=pageable)');
    expect(JSON.stringify(built.workload)).toContain('host-pageable');
  });

  it('throws the preset error for a value the preset refuses', () => {
    expect(() => presetWorkload('overlap-blog', { variant: 'sideways' })).toThrow(PresetError);
  });
});
