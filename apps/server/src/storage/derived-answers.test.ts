import { describe, expect, it } from 'vitest';
import { DerivedAnswers } from './derived-answers.ts';

/** A computation the test finishes by hand, counting how often it was started. */
function gate(): {
  compute: () => Promise<string>;
  finish: (a: string) => void;
  fail: (e: Error) => void;
  starts: () => number;
} {
  let started = 0;
  let settle: { resolve: (a: string) => void; reject: (e: Error) => void } | undefined;
  return {
    compute: () => {
      started++;
      return new Promise<string>((resolve, reject) => {
        settle = { resolve, reject };
      });
    },
    finish: (a) => settle!.resolve(a),
    fail: (e) => settle!.reject(e),
    starts: () => started,
  };
}

describe('answers derived from a stored trace', () => {
  it('computes an answer once for concurrent askers and keeps it for later ones', async () => {
    const answers = new DerivedAnswers(1024);
    const g = gate();
    const first = answers.answer('t1', 'analysis', g.compute);
    const second = answers.answer('t1', 'analysis', g.compute);
    g.finish('{"ok":1}');
    expect(await first).toBe('{"ok":1}');
    expect(await second).toBe('{"ok":1}');
    expect(await answers.answer('t1', 'analysis', g.compute)).toBe('{"ok":1}');
    expect(g.starts()).toBe(1);
    // Another kind, or another trace, is its own answer.
    const other = gate();
    const lanes = answers.answer('t1', 'range-lanes', other.compute);
    other.finish('[]');
    expect(await lanes).toBe('[]');
    expect(other.starts()).toBe(1);
  });

  it('keeps no failed answer: the next asker computes again', async () => {
    const answers = new DerivedAnswers(1024);
    const g = gate();
    const failed = answers.answer('t1', 'analysis', g.compute);
    g.fail(new Error('worker died'));
    await expect(failed).rejects.toThrow('worker died');
    const again = answers.answer('t1', 'analysis', g.compute);
    g.finish('x');
    expect(await again).toBe('x');
    expect(g.starts()).toBe(2);
  });

  it('drops the least recently used answers past its budget, and never keeps one bigger than it', async () => {
    // Budget in UTF-16 bytes: 10 characters.
    const answers = new DerivedAnswers(20);
    const now = (a: string) => () => Promise.resolve(a);
    await answers.answer('a', 'k', now('aaaa'));
    await answers.answer('b', 'k', now('bbbb'));
    await answers.answer('a', 'k', now('never')); // a is now the most recently used
    await answers.answer('c', 'k', now('cccc')); // 12 characters: b goes
    expect(answers.bytes).toBe(16);
    expect(await answers.answer('a', 'k', now('recomputed'))).toBe('aaaa');
    expect(await answers.answer('b', 'k', now('bbb2'))).toBe('bbb2');
    expect(await answers.answer('z', 'k', now('x'.repeat(11)))).toBe('x'.repeat(11));
    expect(await answers.answer('z', 'k', now('small'))).toBe('small');
  });

  it('forgets a deleted trace, including an answer still being computed for it', async () => {
    const answers = new DerivedAnswers(1024);
    await answers.answer('t1', 'range-lanes', () => Promise.resolve('[1]'));
    const g = gate();
    const pending = answers.answer('t1', 'analysis', g.compute);
    answers.forget('t1');
    expect(answers.bytes).toBe(0);
    g.finish('late');
    expect(await pending).toBe('late');
    expect(answers.bytes).toBe(0);
    expect(await answers.answer('t1', 'range-lanes', () => Promise.resolve('[2]'))).toBe('[2]');
  });
});
