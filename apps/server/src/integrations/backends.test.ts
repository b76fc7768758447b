import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { copyFileSync } from 'node:fs';
import type { ProbeReport } from '@streamscope/executor';
import { afterEach, describe, expect, it } from 'vitest';
import { calibratedProfileName, executorBackends, storedCalibration } from './backends.ts';

const fixture = new URL('../../../../fixtures/runs/calibration-h100.json', import.meta.url);
const probeOf = (names: string[]) => (): Promise<ProbeReport> =>
  Promise.resolve({
    addon: { loaded: true, path: 'addon' },
    cuda: {
      ok: true,
      runtimeVersion: 13000,
      driverVersion: 13000,
      devices: names.map((name, deviceId) => ({ deviceId, name })),
    },
  } as ProbeReport);

let dir = '';
afterEach(async () => {
  if (dir !== '') {
    await rm(dir, { recursive: true, force: true });
  }
});

describe('this GPU (calibrated)', () => {
  it('is offered when the data folder holds a calibration of the GPU this machine has', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calibrated-'));
    copyFileSync(fixture, path.join(dir, 'calibration.json'));
    const profile = await storedCalibration(dir, probeOf(['NVIDIA H100 80GB HBM3']));
    expect(profile?.name).toBe(calibratedProfileName);
    const status = await executorBackends(profile).backends.sim.status();
    expect(status.targets).toContain(calibratedProfileName);
  });

  it('is not offered for another GPU, without a GPU, or from a file that does not load', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calibrated-'));
    expect(await storedCalibration(dir, probeOf(['NVIDIA H100 80GB HBM3']))).toBeUndefined();
    copyFileSync(fixture, path.join(dir, 'calibration.json'));
    expect(await storedCalibration(dir, probeOf(['NVIDIA H200']))).toBeUndefined();
    expect(await storedCalibration(dir, probeOf([]))).toBeUndefined();
    await writeFile(path.join(dir, 'calibration.json'), '{"device": {}}');
    const warnings: string[] = [];
    expect(
      await storedCalibration(dir, probeOf(['NVIDIA H100 80GB HBM3']), (l) => warnings.push(l)),
    ).toBeUndefined();
    expect(warnings[0]).toMatch(/calibration\.json: \$\.device\.name/);
    const status = await executorBackends(undefined).backends.sim.status();
    expect(status.targets).not.toContain(calibratedProfileName);
  });
});
