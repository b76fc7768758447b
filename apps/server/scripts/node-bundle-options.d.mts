// Types of node-bundle-options.mjs (plain JavaScript: the CLI's launcher loads it before any
// TypeScript loader could).

/** esbuild options for single-file Node bundles (ESM for Node 20). */
export const nodeBundleOptions: Readonly<Record<string, unknown>>;

/** `entry` bundled into `outfile`; returns the files it was made from (absolute paths). */
export function bundleEntry(esbuild: unknown, entry: string, outfile: string): Promise<string[]>;

/** sql.js's WebAssembly copied into `outDir`; returns its path. */
export function copySqlWasm(serverRoot: string, outDir: string): string;

/** A bundled server's threads, executor child script and WebAssembly, made in `outDir`. */
export function bundleServerCompanions(
  esbuild: unknown,
  serverRoot: string,
  outDir: string,
): Promise<string[]>;
