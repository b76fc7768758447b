import process from 'node:process';
import { printFigure } from './report.ts';
import { run } from './server.bench.ts';

// `pnpm bench server` as one file for a machine with Node but no node_modules (the GPU
// machine's idle cores): bundled by server-bundle.ts beside the bundled server it starts, and
// run from the repository's root (`node DIR/server-bench-bundled.mjs`).
try {
  await run(printFigure);
} catch (error) {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
}
