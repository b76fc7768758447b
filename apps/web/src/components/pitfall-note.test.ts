import { describe, expect, it } from 'vitest';
import { pitfallNote } from './pitfall-note.ts';

describe('pitfallNote', () => {
  it('names the unticked box as the pitfall when the fix is ticking it', () => {
    // ddp-bucketing: overlap=false is the lesson's "before" run
    expect(pitfallNote('ddp-bucketing', 'overlap', true)).toBe(
      'unticked is the pitfall (all-reduce after the whole backward)',
    );
    expect(pitfallNote('graphs', 'useGraph', true)).toBe(
      'unticked is the pitfall (one launch per kernel)',
    );
    expect(pitfallNote('priorities', 'usePriority', true)).toBe(
      'unticked is the pitfall (all streams at default priority)',
    );
  });

  it('names the ticked box when ticking is the pitfall', () => {
    expect(pitfallNote('over-sync', 'syncEveryChunk', true)).toBe(
      'ticked is the pitfall (cudaStreamSynchronize after every chunk)',
    );
  });

  it('names the bad value of a select or number parameter', () => {
    expect(pitfallNote('pinned-vs-pageable', 'hostMemory', false)).toBe(
      'pageable is the pitfall (pageable (malloc))',
    );
    expect(pitfallNote('pipeline', 'chunks', false)).toBe(
      '1 is the pitfall (one chunk: copy in, compute, copy out)',
    );
  });

  it('names each lesson where lessons of one preset disagree on the bad value', () => {
    const note = pitfallNote('overlap-blog', 'variant', false);
    expect(note).toContain('depth-first is the pitfall in “Issue order with one copy engine');
    expect(note).toContain('breadth-first is the pitfall in “Issue order with two copy engines');
  });

  it('does not call a parameter the pitfall without a lesson saying which value is bad', () => {
    expect(pitfallNote('no-such-preset', 'overlap', true)).toBe('switches the pitfall on and off');
  });
});
