/**
 * The C allocator's settings the CLI runs with: package.json's `streamscope` script sets them
 * (a process reads them only as it starts), and so does the tests' server process.
 *
 * glibc raises its mmap threshold each time a big block is freed (up to 32 MiB), so the typed
 * arrays of a big import or analysis in a worker thread came from that thread's arena and stayed
 * there once freed: an idle server held 107 to 120 MiB more after checking and analysing a
 * million ops, against 12 to 22 MiB with the threshold fixed at its default of 128 KiB, and 33
 * to 38 MiB at 4 MiB (workers/idle-memory.test.ts). 4 MiB keeps a trace's big columns out of the
 * arenas and the many smaller blocks an import allocates in them (at 128 KiB each was an mmap of
 * its own). A CLI import of 1M GPU ops peaked at 700-705 MB against 735-746 MB unset. C libraries
 * other than glibc ignore the variable.
 */
export const cliAllocatorEnv: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '4194304',
};
