// Types of bundle-cache.mjs (plain JavaScript: the CLI's launcher runs before any TypeScript
// loader could).

/** Where the server's bundles are kept: `apps/server/.bundle`. */
export const serverBundlesDir: string;

export interface BundleCacheOptions {
  /** The folder the bundles are kept in. */
  readonly bundlesDir: string;
  /** The bundle's name: its record is `<name>.json`, its folders `<name>-…`. */
  readonly name: string;
  /** Makes the bundle in `outDir`; returns the files it was made from (absolute paths). */
  build(outDir: string): Promise<readonly string[]>;
}

export function freshBundle(
  options: BundleCacheOptions,
): Promise<{ readonly dir: string; readonly built: boolean }>;

export function removeUnheld(bundlesDir: string, name: string, keep: string): void;
