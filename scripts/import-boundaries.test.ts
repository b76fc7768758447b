import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function lintAs(relativeFile: string, source: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: repoRoot });
  const [result] = await eslint.lintText(source, { filePath: path.join(repoRoot, relativeFile) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

describe('import boundaries', () => {
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

  it('lets the simulator import the trace and the workload', async () => {
    const messages = await lintAs(
      'packages/simulator/src/index.ts',
      "import type { A } from '@streamscope/trace';\nimport type { B } from '@streamscope/workload';\nexport type C = A | B;\n",
    );
    expect(messages).toEqual([]);
  });
});

describe('test-only import exceptions', () => {
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
