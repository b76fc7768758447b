import { presets } from '@streamscope/workload';
import { describe, expect, it } from 'vitest';
import { parsePreset } from '../api/types.ts';
import { shownPresetDescription } from './preset-description.ts';

/** A preset as GET /api/presets lists it (the server serves the workload package's list). */
function listed(name: string) {
  const info = presets.find((p) => p.name === name)!;
  return parsePreset(JSON.parse(JSON.stringify(info)) as Parameters<typeof parsePreset>[0]);
}

describe('shownPresetDescription', () => {
  it('quotes the values set in the picker, not the defaults the list was described with', () => {
    const blog = listed('overlap-blog');
    expect(blog.description).toContain('16 MiB of pinned floats');
    const shown = shownPresetDescription(blog, {
      variant: 'breadth-first',
      streams: 8,
      size: '64MiB',
    });
    expect(shown.atDefaults).toBe(false);
    expect(shown.text).toContain('64 MiB of pinned floats');
    expect(shown.text).toContain('split over 8 streams');
    expect(shown.text).not.toContain('16 MiB');

    const ddp = shownPresetDescription(listed('ddp-bucketing'), { bucketMiB: 4 });
    expect(ddp.text).toContain('in 96 buckets of 4 MiB: a bucket closes once it holds 4 MiB');
  });

  it('leaves an empty field to its default, as the run does', () => {
    const blog = listed('overlap-blog');
    expect(shownPresetDescription(blog, { size: undefined, streams: 2 }).text).toContain(
      '16 MiB of pinned floats through H2D, a kernel and D2H, run blocking (sequential) or ' +
        'split over 2 streams',
    );
  });

  it("says the figures are the defaults' while a value is not valid", () => {
    const blog = listed('overlap-blog');
    const shown = shownPresetDescription(blog, { streams: 0 });
    expect(shown).toEqual({ text: blog.description, atDefaults: true });
  });
});
