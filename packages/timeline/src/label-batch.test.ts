import { describe, expect, it } from 'vitest';
import { LabelBatch } from './label-batch.ts';
import type { PaintSurface } from './paint-surface.ts';

function textRecorder() {
  const texts: { value: string; xPx: number; yPx: number; color: number; maxWidthPx?: number }[] =
    [];
  const surface = {
    text: (
      value: string,
      xPx: number,
      yPx: number,
      color: number,
      _role: string,
      _align: string,
      maxWidthPx?: number,
    ) =>
      texts.push({ value, xPx, yPx, color, ...(maxWidthPx === undefined ? {} : { maxWidthPx }) }),
  } as unknown as PaintSurface;
  return { surface, texts };
}

describe('label batch', () => {
  it('draws every label in its place, one colour after another, then empties', () => {
    const batch = new LabelBatch();
    const { surface, texts } = textRecorder();
    // More labels than the first capacity, alternating between two colours and a third.
    for (let i = 0; i < 150; i++) {
      batch.add(
        `op${i}`,
        i * 10,
        40 + (i % 3),
        50 + i,
        i % 7 === 0 ? 0xff0000ff : i % 2 === 0 ? 0x000000ff : 0xffffffff,
      );
    }
    expect(batch.flush(surface)).toBe(150);
    expect(texts).toHaveLength(150);
    // The colour changes only where one colour's labels end.
    const changes = texts.filter((t, i) => i > 0 && t.color !== texts[i - 1]!.color).length;
    expect(changes).toBe(2);
    const byName = new Map(texts.map((t) => [t.value, t]));
    for (let i = 0; i < 150; i++) {
      expect(byName.get(`op${i}`)).toMatchObject({
        xPx: i * 10,
        yPx: 40 + (i % 3),
        maxWidthPx: 50 + i,
      });
    }
    expect(batch.flush(surface)).toBe(0);
    expect(texts).toHaveLength(150);
  });
});
