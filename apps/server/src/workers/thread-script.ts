import { fileURLToPath } from 'node:url';

// Where a worker thread's first module is. The server runs from TypeScript sources through tsx
// (or vitest), and a thread does not inherit its parent's loader: it starts on
// worker-bootstrap.mjs, which registers tsx and imports the TypeScript entry. A bundled server
// (esbuild, one .mjs file per entry, side by side) starts the thread on the bundled entry itself.

/** True when this module runs from a bundle rather than from its TypeScript source. */
export const isBundled = !import.meta.url.endsWith('.ts');

export interface ThreadScript {
  /** The module the Worker is started on. */
  readonly url: URL;
  /** For the bootstrap: the TypeScript entry it imports (absent in a bundle). */
  readonly entry?: string;
}

/**
 * A thread entry by its base name (`worker-main`, `metadata-worker`): `name.ts` beside
 * `sourceUrl` under tsx, or `name.mjs` beside the bundle.
 */
export function threadScript(name: string, sourceUrl: string): ThreadScript {
  if (isBundled) {
    return { url: new URL(`./${name}.mjs`, import.meta.url) };
  }
  return {
    url: new URL('./worker-bootstrap.mjs', import.meta.url),
    entry: new URL(`./${name}.ts`, sourceUrl).href,
  };
}

/** A file shipped beside the bundle (sql.js's WebAssembly), or undefined under tsx. */
export function besideBundle(fileName: string): string | undefined {
  return isBundled ? fileURLToPath(new URL(`./${fileName}`, import.meta.url)) : undefined;
}
