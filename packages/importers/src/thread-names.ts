/** A host thread about to become a track: the LaneRegistry index of its owner, its ids and name. */
export interface ThreadToName {
  readonly proc: number;
  readonly tid: number;
  /** The tid as the source wrote it, where `tid` is an id the importer made up; else ''. */
  readonly tidText: string;
  /** The thread's name from the source ('' if it has none). */
  readonly name: string;
}

/**
 * Track names for host threads, in the order given. A name that several threads of one process
 * share gets each one's tid ("python3 (tid 4321)"): PyTorch's processes run several threads named
 * "python3", and a row label alone could not tell them apart. A name no other thread of its
 * process has stays as it is, and an unnamed thread stays unnamed (the trace labels it by its tid:
 * "Thread 4321").
 */
export function threadTrackNames(threads: readonly ThreadToName[]): string[] {
  const keyOf = (t: ThreadToName): string => `${t.proc}\u0000${t.name}`;
  const holders = new Map<string, number>();
  for (const thread of threads) {
    if (thread.name !== '') {
      const key = keyOf(thread);
      holders.set(key, (holders.get(key) ?? 0) + 1);
    }
  }
  return threads.map((thread) => {
    if (thread.name === '' || holders.get(keyOf(thread))! < 2) {
      return thread.name;
    }
    const tid = thread.tidText !== '' ? thread.tidText : String(thread.tid);
    return `${thread.name} (tid ${tid})`;
  });
}
