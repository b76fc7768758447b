import { fileURLToPath } from 'node:url';

/** Where native/scripts/build.mjs puts the addon in this repository. */
export const defaultAddonPath = fileURLToPath(
  new URL('../../../../native/build/streamscope_native.node', import.meta.url),
);
