import { readFileSync } from 'node:fs';
import type { CalibrationDevice, DeviceProfile } from '@streamscope/simulator';
import {
  applyCalibration,
  deviceProfiles,
  profileFromCalibration,
  simulate,
} from '@streamscope/simulator';
import { Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { benchmarks } from './benchmarks.ts';
import { benchmarkPlan, readAll, runBenchmarks, simulatedReadings } from './calibrate.ts';
import { readBenchmark } from './readings.ts';

const fixtures = new URL('../../../../fixtures/runs/', import.meta.url);
const measuredH100 = JSON.parse(
  readFileSync(new URL('calibration-h100.json', fixtures), 'utf8'),
) as { measured: Record<string, number> };

describe('the shipped profiles', () => {
  for (const gpu of ['h100', 'h200'] as const) {
    it(`${gpu} is its fixture calibration: measured values, device, driver and date`, () => {
      const json = JSON.parse(
        readFileSync(new URL(`calibration-${gpu}.json`, fixtures), 'utf8'),
      ) as {
        device: CalibrationDevice;
        driver: string;
        date: string;
        measured: Record<string, number>;
      };
      const shipped = deviceProfiles[gpu];
      const meta = {
        driver: json.driver,
        date: json.date,
        name: shipped.name,
        title: shipped.title,
      };
      // applying the fixture's values again changes nothing
      const again: DeviceProfile = applyCalibration(shipped, json.device, json.measured, meta);
      const { provenance: _a, source: _s, ...values } = again;
      const { provenance, source: _t, ...shippedValues } = shipped;
      expect(values).toEqual(shippedValues);
      expect(provenance?.measured).toEqual({
        device: json.device.name,
        driver: json.driver,
        date: json.date,
        values: Object.keys(json.measured).filter((k) => !k.startsWith('check.')),
      });
      expect(provenance?.inherited.from).toBe('hopper');
    });
  }
});

describe('calibration benchmarks', () => {
  it('are workloads in the spec that the simulator runs, each reading what it says it measures', () => {
    const profile = deviceProfiles.h100;
    for (const bench of benchmarks) {
      const trace = simulate(benchmarkPlan(bench, profile.device), profile);
      const keys = Object.keys(readBenchmark(bench.name, trace)).filter(
        (k) => !k.startsWith('check.'),
      );
      expect(keys.sort(), bench.name).toEqual([...bench.measures].sort());
    }
  });

  it('calibrating the simulator recovers the values the shipped h100 profile was built from', () => {
    // The self-check: the same benchmarks on the simulator read back what the H100 measured.
    const simulated = simulatedReadings(deviceProfiles.h100);
    for (const [key, value] of Object.entries(measuredH100.measured)) {
      if (key.startsWith('check.') || key === 'api.graphInstantiate') {
        continue;
      }
      const got = simulated[key];
      expect(got, key).toBeDefined();
      const tolerance = Math.max(Math.abs(value) * 0.06, 1);
      expect(
        Math.abs(got! - value),
        `${key}: simulated ${got}, measured ${value}`,
      ).toBeLessThanOrEqual(tolerance);
    }
  });

  it('a profile made from simulated readings reads back the same values again', () => {
    const h200 = deviceProfiles.h200;
    const readings = simulatedReadings(h200);
    const again = profileFromCalibration({
      device: { ...h200.device, priorityRange: [...h200.device.priorityRange] },
      driver: 'sim',
      date: 'today',
      measured: readings,
    });
    expect(again.streamGapNs).toBe(h200.streamGapNs);
    expect(again.api.launchKernel).toBeCloseTo(h200.api.launchKernel, 0);
    expect(again.pageable?.chunkBytes).toBe(h200.pageable?.chunkBytes);
    expect(again.freeSyncs).toBe(true);
    expect(again.mallocSyncs).toBe(false);
  });

  it('reads back the first-use cost of each kind of call the simulator was given', () => {
    const h100 = deviceProfiles.h100;
    const firstUseNs = {
      launchKernel: 52_000,
      memcpy: 24_000,
      memset: 13_000,
      eventRecord: 9_000,
      streamWait: 5_000,
      malloc: 70_000,
      mallocAsync: 210_000,
    };
    const profile: DeviceProfile = { ...h100, firstUseNs };
    const bench = benchmarks.find((b) => b.name === 'first-use')!;
    const read = readBenchmark('first-use', simulate(benchmarkPlan(bench, h100.device), profile));
    for (const [call, ns] of Object.entries(firstUseNs)) {
      expect(read[`firstUseNs.${call}`], call).toBeCloseTo(ns, -1); // whole ns in the trace
    }
  });

  it('runs every benchmark once per round and takes each value from the median round', async () => {
    const profile = deviceProfiles.h100;
    const slow = { ...profile, api: { ...profile.api, launchKernel: 20_000 } };
    let runs = 0;
    const traces = await runBenchmarks(
      (plan) => {
        runs++;
        // rounds 0 and 2 on the usual host, round 1 on a slow one
        return Promise.resolve(
          simulate(
            plan,
            runs > benchmarks.length && runs <= 2 * benchmarks.length ? slow : profile,
          ),
        );
      },
      profile.device,
      () => undefined,
      3,
    );
    expect(runs).toBe(3 * benchmarks.length);
    expect(traces.get('launch')).toHaveLength(3);
    expect(readAll(traces)['api.launchKernel']).toBeCloseTo(profile.api.launchKernel, 0);
  });

  it('names the benchmark and the value its trace lacks', () => {
    expect(() => readBenchmark('stream-gap', new Trace())).toThrow(
      /benchmark stream-gap: no measurement for streamGapNs/,
    );
    expect(() => readBenchmark('nonsense', new Trace())).toThrow(
      'no reading for benchmark nonsense',
    );
  });
});
