import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { NativeAddon } from '../index.d.ts';

export type {
  NativeAddon,
  NativeBuffer,
  NativeDevice,
  NativePlan,
  NativeProbe,
  NativeRunOptions,
  NativeRunStarted,
  NativeRunStatus,
  NativeStream,
  NativeEncodeInput,
} from '../index.d.ts';

/** Where the build script puts the addon. */
export const addonPath = fileURLToPath(
  new URL('../build/streamscope_native.node', import.meta.url),
);
const statusPath = fileURLToPath(new URL('../build/status.json', import.meta.url));

export type AddonLoad =
  | { readonly ok: true; readonly addon: NativeAddon }
  | { readonly ok: false; readonly reason: string };

/** Loads the addon, or says exactly why it cannot (not built and why, or the loader's error). */
export function loadAddon(path: string = addonPath): AddonLoad {
  if (!existsSync(path)) {
    let why = 'not built';
    if (existsSync(statusPath)) {
      const status = JSON.parse(readFileSync(statusPath, 'utf8')) as { reason?: string };
      why = `not built: ${status.reason ?? 'unknown reason'}`;
    }
    return { ok: false, reason: `native addon ${why}` };
  }
  try {
    const addon = createRequire(import.meta.url)(path) as NativeAddon;
    return { ok: true, addon };
  } catch (error) {
    return { ok: false, reason: `native addon failed to load: ${(error as Error).message}` };
  }
}
