import { describe, expect, it } from 'vitest';
import { namePieces } from './name-breaks.ts';

describe('namePieces', () => {
  it('cuts after separators and before a step number, never inside a word', () => {
    expect(namePieces('ProfilerStep#3')).toEqual(['ProfilerStep', '#3']);
    expect(namePieces('train_step/fwd.bwd:12')).toEqual(['train_', 'step/', 'fwd.', 'bwd:', '12']);
    expect(namePieces('all-reduce')).toEqual(['all-', 'reduce']);
  });

  it('leaves a name without separators whole, and its pieces always join back to it', () => {
    expect(namePieces('optimizer')).toEqual(['optimizer']);
    // Separators at the ends or in a row give no empty piece.
    for (const name of ['#1', '_a_', 'a__b', 'x#', '##']) {
      const pieces = namePieces(name);
      expect(pieces.join('')).toBe(name);
      expect(pieces).not.toContain('');
    }
  });
});
