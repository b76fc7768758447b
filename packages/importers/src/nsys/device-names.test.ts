import { describe, expect, it } from 'vitest';
import { importFixture } from '../test-support.ts';

describe('device names from the GPU table of each schema', () => {
  it('reads the pre-2021 TARGET_INFO_CUDA_GPU, keyed by deviceId with CUPTI-named columns', async () => {
    const { trace, warnings } = await importFixture('nsys/older/schema-2021.sqlite');
    expect(warnings.join('\n')).not.toMatch(/TARGET_INFO_CUDA_GPU|named by number/);
    const v100 = {
      name: 'Tesla V100-SXM2-16GB',
      smCount: 80, // numMultiprocessors
      memoryBytes: 16945512448, // globalMemorySize
      computeCapability: '7.0', // computeCapabilityMajor.computeCapabilityMinor
      copyEngineCount: 6, // numMemcpyEngines
    };
    expect(trace.devices).toEqual([
      { deviceId: 0, ...v100 },
      { deviceId: 1, ...v100 },
    ]);
  });

  it('reads TARGET_INFO_GPU (2021.2 on) by cuDevice', async () => {
    const { trace } = await importFixture('nsys/handmade/ddp-2gpu.sqlite');
    expect(trace.devices.map((d) => [d.deviceId, d.name, d.pciBusId, d.clockRateKHz])).toEqual([
      [0, 'NVIDIA H100 80GB HBM3', '0000:18:00.0', 1980000],
      [1, 'NVIDIA H100 80GB HBM3', '0000:19:00.0', 1980000],
    ]);
  });
});
