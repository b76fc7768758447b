import { fileURLToPath } from 'node:url';

/** Where native/scripts/build.mjs puts the injection collector in this repository. */
export const defaultCollectorPath = fileURLToPath(
  new URL('../../../../native/build/libstreamscope_inject.so', import.meta.url),
);

/** The loader check beside it: loads the collector as the driver would and runs its self-test. */
export const defaultCollectorCheckPath = fileURLToPath(
  new URL('../../../../native/build/streamscope-inject-check', import.meta.url),
);
