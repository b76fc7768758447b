// DESIGN.md's import directions, as data: which workspace packages each folder may import.
// eslint.config.mjs turns this table into `no-restricted-imports` rules; the test beside
// this file proves that a forbidden import fails lint.
export const allowedImports = {
  'packages/trace': [],
  'packages/workload': ['trace'],
  'packages/simulator': ['trace', 'workload'],
  'packages/importers': ['trace'],
  'packages/analysis': ['trace'],
  'packages/timeline': ['trace'],
  'packages/executor': ['trace', 'workload', 'simulator'],
  'apps/server': [
    'trace',
    'workload',
    'simulator',
    'importers',
    'analysis',
    'executor',
    'timeline',
  ],
  'apps/web': ['trace', 'workload', 'simulator', 'importers', 'analysis', 'timeline'],
  native: [],
  e2e: ['trace'],
  scripts: ['trace', 'workload', 'simulator', 'importers', 'analysis', 'executor', 'timeline'],
};

/**
 * Unit tests may also build their scenarios with these packages (written down here, not granted
 * by memory): analysis and the renderer are tested on simulated traces and recorded imports.
 */
export const testOnlyImports = {
  'packages/analysis': ['workload', 'simulator', 'importers'],
  'packages/timeline': ['workload', 'simulator'],
  'packages/executor': ['importers'],
};

const allPackages = [
  'trace',
  'workload',
  'simulator',
  'importers',
  'analysis',
  'timeline',
  'executor',
  'server',
  'web',
  'native',
];

/**
 * Files of another package a folder may still import by path, and why: tooling, not code. The
 * benchmarks bundle their import child with the server's bundle cache and esbuild options, as
 * the server bundles its own threads, so that they measure what the server runs; the browser
 * tests start servers of their own with the server's process launcher (serve-process.mjs), as
 * its own tests do.
 */
const toolingPaths = {
  // Gitignore rules: a folder excluded can only be let in again as a folder, its children then
  // excluded again but for the one folder let in.
  scripts: ['!../../apps/server', '../../apps/server/*', '!../../apps/server/scripts'],
  e2e: ['!../apps/server', '../apps/server/*', '!../apps/server/scripts'],
};

/** Extra bans beyond workspace packages (STYLE.md B.1: the renderer never imports React). */
const extraBans = {
  'packages/timeline': ['react', 'react-dom', 'zustand'],
};

/** `no-restricted-imports` patterns for one folder. */
export function restrictedImportsFor(folder, forTests = false) {
  const allowed = new Set([
    ...(allowedImports[folder] ?? []),
    ...(forTests ? (testOnlyImports[folder] ?? []) : []),
  ]);
  const own = folder.split('/').pop();
  const forbidden = allPackages.filter((p) => p !== own && !allowed.has(p));
  const patterns = forbidden.map((p) => ({
    group: [`@streamscope/${p}`, `@streamscope/${p}/*`],
    message: `${folder} may not import @streamscope/${p} (DESIGN.md, "Layout").`,
  }));
  for (const name of extraBans[folder] ?? []) {
    patterns.push({ group: [name, `${name}/*`], message: `${folder} may not import ${name}.` });
  }
  // Reaching into another package's files by relative path bypasses the table above.
  patterns.push({
    // At any depth: `../apps/…` from a folder's top (e2e/, scripts/) as `../../../packages/…`
    // from deep in a package. No package has a folder of its own named `packages` or `apps`.
    group: ['**/packages/*', '**/apps/*', ...(toolingPaths[folder] ?? [])],
    message: 'Import workspace packages by name, never by relative path.',
  });
  return patterns;
}
