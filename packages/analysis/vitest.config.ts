import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

// Tests build scenarios with the simulator, workload presets and importers (import-boundaries.mjs
// allows it for *.test.ts); they are resolved from source, like tsconfig.json's `paths`, so this
// package needs no runtime dependency on them.
const sibling = (name: string): string =>
  fileURLToPath(new URL(`../${name}/src/index.ts`, import.meta.url));

export default defineProject({
  resolve: {
    alias: {
      '@streamscope/simulator': sibling('simulator'),
      '@streamscope/workload': sibling('workload'),
      '@streamscope/importers': sibling('importers'),
    },
  },
  test: { environment: 'node', include: ['src/**/*.test.ts', '*.test.ts'] },
});
