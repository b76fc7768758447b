import { describe, expect, it } from 'vitest';
import { oneSqliteAtATime } from './inflate-sqlite.ts';

/** Work that starts when called and ends when the test says so. */
function gatedWork(name: string, log: string[]) {
  let finish = (): void => undefined;
  const work = (): Promise<string> => {
    log.push(`${name} starts`);
    return new Promise((resolve) => {
      finish = () => {
        log.push(`${name} ends`);
        resolve(name);
      };
    });
  };
  return { work, finish: () => finish() };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('oneSqliteAtATime', () => {
  it('runs one export read at a time, in order, and a cancelled waiter keeps the order', async () => {
    const log: string[] = [];
    const a = gatedWork('a', log);
    const b = gatedWork('b', log);
    const c = gatedWork('c', log);
    const never = new AbortController().signal;
    const cancelB = new AbortController();
    const runA = oneSqliteAtATime(never, a.work);
    const runB = oneSqliteAtATime(cancelB.signal, b.work);
    const runC = oneSqliteAtATime(never, c.work);
    await turn();
    expect(log).toEqual(['a starts']);
    cancelB.abort(new Error('cancelled while waiting'));
    await expect(runB).rejects.toThrow('cancelled while waiting');
    await turn();
    // b gave up its place, but c still waits for a.
    expect(log).toEqual(['a starts']);
    a.finish();
    expect(await runA).toBe('a');
    await turn();
    expect(log).toEqual(['a starts', 'a ends', 'c starts']);
    c.finish();
    expect(await runC).toBe('c');
    expect(log).not.toContain('b starts');
  });
});
