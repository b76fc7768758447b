import { execFileSync } from 'node:child_process';
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

describe.skipIf(!nvccOnPath)('NCCL, loaded only when a plan has collectives', () => {
  it('is reported by the probe, with every place tried when it is missing', () => {
    const load = loadAddon();
    if (!load.ok) {
      throw new Error(load.reason);
    }
    const nccl = load.addon.probe().nccl;
    if (nccl.ok) {
      expect(nccl.version).toBeGreaterThanOrEqual(20000);
      expect(nccl.library).toMatch(/libnccl\.so/);
    } else {
      expect(nccl.error).toMatch(/^NCCL \(libnccl\.so\.2\) not found; tried libnccl\.so\.2, /);
      expect(nccl.error).toContain('/usr/local/cuda/lib64/libnccl.so.2');
      expect(nccl.error).toContain('STREAMSCOPE_NCCL_PATH');
    }
  });

  it('tries STREAMSCOPE_NCCL_PATH first', () => {
    // The table loads once per process: ask a fresh one.
    const missing = path.join(path.dirname(addonPath), 'no-such-libnccl.so.2');
    const script = `const a = require(${JSON.stringify(addonPath)}); console.log(JSON.stringify(a.probe().nccl));`;
    const out = execFileSync(process.execPath, ['-e', script], {
      env: { ...process.env, STREAMSCOPE_NCCL_PATH: missing },
      encoding: 'utf8',
    });
    const nccl = JSON.parse(out) as { ok: boolean; library?: string; error?: string };
    if (nccl.ok) {
      expect(nccl.library).not.toBe(missing);
    } else {
      expect(nccl.error).toContain(`tried ${missing}, libnccl.so.2`);
    }
  });

  it('refuses a collective whose part names a stream on another device, with the place', () => {
    const load = loadAddon();
    if (!load.ok) {
      throw new Error(load.reason);
    }
    const stream = (device: number, track: number) => ({
      device,
      type: 2 as const,
      priority: 0,
      track,
    });
    const plan = {
      devices: [0, 1],
      streams: [stream(0, 1), stream(1, 2)],
      buffers: [
        { device: 0, kind: 0 as const, bytes: 1024 },
        { device: 1, kind: 0 as const, bytes: 1024 },
      ],
      events: [],
      graphs: [],
      comms: [{ devices: [0, 1] }],
      // rank 1's part names stream 0, which is on device 0.
      collectives: [
        {
          comm: 0,
          count: 256,
          dtype: 7,
          reduce: 0,
          root: 0,
          parts: new Float64Array([0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 1, 0, 1, -1]),
        },
      ],
      threads: [{ track: 0, ops: new Float64Array([23, 0, 0, 0, 0, 0, 0, 0, 0, 1, -1]) }],
    };
    expect(() => load.addon.start(plan, { timing: 'none' }, () => undefined)).toThrow(
      /collectives\[0\]\.parts\[1\]: the stream is not on the rank's device 1/,
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
