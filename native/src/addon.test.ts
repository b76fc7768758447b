import { existsSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { describe, expect, it } from 'vitest';
import { addonPath, loadAddon } from './index.ts';

// CI has nvcc but no GPU: there the addon must have been built by `pnpm install`, must load, and
// must say why CUDA is unusable. Without nvcc the build is skipped by design.
const nvccOnPath = [process.env.CUDA_HOME ? path.join(process.env.CUDA_HOME, 'bin') : '']
  .concat((process.env.PATH ?? '').split(path.delimiter))
  .some((dir) => dir !== '' && existsSync(path.join(dir, 'nvcc')));

describe.skipIf(!nvccOnPath)('the native addon (nvcc present, so it must be built)', () => {
  it('was built by the install script', () => {
    expect(existsSync(addonPath), `${addonPath} missing: run pnpm install`).toBe(true);
  });

  it('loads and probes, reporting the driver or exactly why there is none', () => {
    const load = loadAddon();
    if (!load.ok) {
      throw new Error(load.reason);
    }
    const probe = load.addon.probe();
    expect(probe.built).toBe(true);
    expect(probe.cuda.runtimeVersion).toBeGreaterThanOrEqual(13000);
    if (probe.cuda.ok) {
      expect(probe.cuda.devices.length).toBeGreaterThan(0);
    } else {
      expect(probe.cuda.errorName).toMatch(/^cudaError/);
      expect(probe.cuda.error).toContain(probe.cuda.errorName);
    }
  });

  it('refuses a plan that names a stream it does not have, with the place', () => {
    const load = loadAddon();
    if (!load.ok) {
      throw new Error(load.reason);
    }
    const plan = {
      devices: [0],
      streams: [],
      buffers: [],
      events: [],
      graphs: [],
      threads: [{ track: 0, ops: new Float64Array([1, 3, 1000, 1, 1, 1, 32, 1, 0, 1, -1]) }],
    };
    expect(() => load.addon.start(plan, { timing: 'none' }, () => undefined)).toThrow(
      /threads\[0\]\.ops\[0\]: stream 3 does not exist/,
    );
  });
});

describe('loadAddon', () => {
  it('explains a missing addon instead of throwing', () => {
    const load = loadAddon(path.join(path.dirname(addonPath), 'nowhere.node'));
    expect(load.ok).toBe(false);
    expect(load.ok ? '' : load.reason).toMatch(/native addon/);
  });
});
