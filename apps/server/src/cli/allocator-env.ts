/**
 * The C allocator's settings the CLI runs with: package.json's `streamscope` script sets them
 * (a process reads them only as it starts), and so does the tests' server process.
 *
 * glibc raises its mmap threshold each time a big block is freed (up to 32 MiB), so the typed
 * arrays of a big import or analysis in a worker thread came from that thread's arena and stayed
 * there once freed: an idle server held 107 to 120 MiB more after checking and analysing a
 * million ops, against 12 to 22 MiB with the threshold fixed at its default of 128 KiB
 * (workers/idle-memory.test.ts). C libraries other than glibc ignore the variable.
 */
export const cliAllocatorEnv: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
};
