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
    group: ['../../packages/*', '../../../packages/*', '../../apps/*', '../../../apps/*'],
    message: 'Import workspace packages by name, never by relative path.',
  });
  return patterns;
}
