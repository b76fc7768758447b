import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts', '*.test.ts'],
    // Real servers on loopback with worker threads: on a loaded 2-core machine one import can
    // take seconds. A limit, not a measurement: no test here asserts on time.
    testTimeout: 30_000,
  },
});
