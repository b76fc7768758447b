import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const srcDir = fileURLToPath(new URL('.', import.meta.url));

function sourceFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) {
      return entry.name === '__snapshots__'
        ? []
        : sourceFiles(`${dir}/${entry.name}`, `${prefix}${entry.name}/`);
    }
    return entry.name.endsWith('.ts') ? [`${prefix}${entry.name}`] : [];
  });
}

describe('the package runs in a browser Web Worker as in Node', () => {
  it('imports no Node module outside tests and its Node-only entry (node/)', () => {
    const shipped = sourceFiles(srcDir).filter(
      (f) => !f.endsWith('.test.ts') && f !== 'test-support.ts' && !f.startsWith('node/'),
    );
    expect(shipped.length).toBeGreaterThan(10);
    for (const file of shipped) {
      const text = readFileSync(`${srcDir}/${file}`, 'utf8');
      expect(text, file).not.toMatch(/from '(node:|fs|path|zlib|buffer|stream)/);
      expect(text, file).not.toMatch(/(?<![.\w])(Buffer|process|require)\s*[.(]/);
      // The Node-only entry (`@streamscope/importers/node`) is never reached from the others.
      expect(text, file).not.toMatch(/from '(\.\.?\/)+node\//);
    }
  });

  it('keeps the test helpers out of the public API', () => {
    const index = readFileSync(`${srcDir}/index.ts`, 'utf8');
    expect(index).not.toContain('test-support');
  });
});
