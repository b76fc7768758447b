import { readFileSync } from 'node:fs';
import type { Calibration } from '@streamscope/executor';
import { deviceProfiles } from '@streamscope/simulator';
import { describe, expect, it } from 'vitest';
import { compareLines } from './calibrate.ts';

const measuredH100 = JSON.parse(
  readFileSync(
    new URL('../../../../../fixtures/runs/calibration-h100.json', import.meta.url),
    'utf8',
  ),
) as Calibration;

describe('calibrate --compare', () => {
  it('prints each measured value beside the profile and the simulator on that profile', () => {
    const lines = compareLines(measuredH100, deviceProfiles.h200);
    expect(lines[0]).toContain('measured on NVIDIA H100 80GB HBM3 (580.159.04, 2026-11-28)');
    const gap = lines.find((l) => l.startsWith('streamGapNs'))!.split(/\s+/);
    // measured on the H100, the H200 profile's own value, and what its benchmark reads on it
    expect(gap[1]).toBe(String(measuredH100.measured['streamGapNs']));
    expect(gap[2]).toBe(String(deviceProfiles.h200.streamGapNs));
    expect(gap[3]).toBe(String(deviceProfiles.h200.streamGapNs));
    const syncs = lines.find((l) => l.startsWith('freeSyncs'))!.split(/\s+/);
    expect(syncs.slice(1)).toEqual(['1', '1', '1']);
    expect(lines).toHaveLength(2 + Object.keys(measuredH100.measured).length);
  });
});
