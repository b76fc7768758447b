import { ESLint } from 'eslint';
import { rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Lints `source` as if it were `relativeFile`, through the real eslint.config.mjs. The file is
 * written for the duration (type-aware lint only sees files its tsconfig includes), under a
 * name no one else uses, and removed again.
 */
async function lintAs(relativeFile: string, source: string): Promise<string[]> {
  const dir = path.dirname(path.join(repoRoot, relativeFile));
  const base = path.basename(relativeFile).replace(/^/, 'zz-boundary-probe-');
  const file = path.join(dir, base);
  await writeFile(file, source);
  try {
    const eslint = new ESLint({ cwd: repoRoot });
    const [result] = await eslint.lintFiles([file]);
    const messages = result?.messages ?? [];
    const fatal = messages.find((m) => m.fatal === true);
    if (fatal !== undefined) {
      throw new Error(`lint could not parse ${relativeFile}: ${fatal.message}`);
    }
    return messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  } finally {
    await rm(file, { force: true });
  }
}

// Type-aware lint builds a TypeScript program per package on first use: seconds, not ms.
const lintTimeoutMs = 90_000;

describe('import boundaries', { timeout: lintTimeoutMs }, () => {
  it('fails lint when packages/trace imports another workspace package', async () => {
    const messages = await lintAs(
      'packages/trace/src/index.ts',
      "import { x } from '@streamscope/workload';\nexport const y = x;\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('packages/trace may not import @streamscope/workload');
  });

  it('fails lint when the renderer imports React', async () => {
    const messages = await lintAs(
      'packages/timeline/src/index.ts',
      "import { useState } from 'react';\nexport const y = useState;\n",
    );
    expect(messages[0]).toContain('packages/timeline may not import react');
  });

  it('fails lint when the web app imports the executor', async () => {
    const messages = await lintAs(
      'apps/web/src/main.tsx',
      "import { x } from '@streamscope/executor';\nexport const y = x;\n",
    );
    expect(messages[0]).toContain('apps/web may not import @streamscope/executor');
  });

  it("lets the benchmarks use the server's bundle tooling, but not reach into its sources", async () => {
    const tooling = await lintAs(
      'scripts/bench/scale.bench.ts',
      "import { serverBundlesDir } from '../../apps/server/scripts/bundle-cache.mjs';\nexport const y = serverBundlesDir;\n",
    );
    expect(tooling).toEqual([]);
    const sources = await lintAs(
      'scripts/bench/scale.bench.ts',
      "import { streamOf } from '../../apps/server/src/cli/main.ts';\nexport const y = streamOf;\n",
    );
    expect(sources[0]).toContain('never by relative path');
  });

  it('fails lint on a relative path into another package at any depth', async () => {
    // From a folder's top (e2e/ beside apps/) and from deep inside a package.
    const fromE2e = await lintAs(
      'e2e/import.spec.ts',
      "import { startServerProcess } from '../apps/server/src/test-support/server-process.ts';\nexport const y = startServerProcess;\n",
    );
    expect(fromE2e[0]).toContain('never by relative path');
    // …but for the server's process launcher, the one file of it the browser tests may use.
    const launcher = await lintAs(
      'e2e/import.spec.ts',
      "import { spawnServe } from '../apps/server/scripts/serve-process.mjs';\nexport const y = spawnServe;\n",
    );
    expect(launcher).toEqual([]);
    const deep = await lintAs(
      'packages/importers/src/chrome/event-scanner.ts',
      "import { x } from '../../../../packages/trace/src/index.ts';\nexport const y = x;\n",
    );
    expect(deep[0]).toContain('never by relative path');
  });

  it('lets the simulator import the trace and the workload', async () => {
    const messages = await lintAs(
      'packages/simulator/src/index.ts',
      "import type { A } from '@streamscope/trace';\nimport type { B } from '@streamscope/workload';\nexport type C = A | B;\n",
    );
    expect(messages).toEqual([]);
  });
});

describe('test-only import exceptions', { timeout: lintTimeoutMs }, () => {
  it('lets analysis tests build scenarios with the simulator but not analysis sources', async () => {
    const inTest = await lintAs(
      'packages/analysis/src/metrics.test.ts',
      "import type { A } from '@streamscope/simulator';\nexport type B = A;\n",
    );
    expect(inTest).toEqual([]);
    const inSource = await lintAs(
      'packages/analysis/src/metrics.ts',
      "import type { A } from '@streamscope/simulator';\nexport type B = A;\n",
    );
    expect(inSource[0]).toContain('packages/analysis may not import @streamscope/simulator');
  });
});
