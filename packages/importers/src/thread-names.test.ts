import { describe, expect, it } from 'vitest';
import { threadTrackNames } from './thread-names.ts';

const thread = (proc: number, tid: number, name: string, tidText = '') => ({
  proc,
  tid,
  tidText,
  name,
});

describe('threadTrackNames', () => {
  it('tells threads of one process that share a name apart by their tids, and leaves unique names alone', () => {
    expect(
      threadTrackNames([
        thread(0, 992, 'python3'),
        thread(0, 1084, 'python3'),
        thread(0, 1075, 'pt_nccl_watchdg'),
        thread(0, 1085, 'python3'),
        thread(0, 1091, 'pt_autograd_1'),
      ]),
    ).toEqual([
      'python3 (tid 992)',
      'python3 (tid 1084)',
      'pt_nccl_watchdg',
      'python3 (tid 1085)',
      'pt_autograd_1',
    ]);
  });

  it('leaves a name alone that threads of different processes share, one each', () => {
    // Two ranks' main threads: each is the only "python3" of its process.
    expect(threadTrackNames([thread(0, 991, 'python3'), thread(1, 992, 'python3')])).toEqual([
      'python3',
      'python3',
    ]);
  });

  it('keeps unnamed threads unnamed, however many there are', () => {
    // The trace labels an unnamed host track by its tid ("Thread 974").
    expect(
      threadTrackNames([thread(0, 974, ''), thread(0, 975, ''), thread(0, 976, 'python3')]),
    ).toEqual(['', '', 'python3']);
  });

  it("names a tid the importer made up by the source's spelling of it", () => {
    expect(
      threadTrackNames([
        thread(0, 0x40000000, 'worker', 'Loader A'),
        thread(0, 0x40000001, 'worker', 'Loader B'),
      ]),
    ).toEqual(['worker (tid Loader A)', 'worker (tid Loader B)']);
  });
});
