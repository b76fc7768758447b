import { describe, expect, it } from 'vitest';
import { launchLatencyOfNs } from './launch.ts';

describe('launchLatencyOfNs', () => {
  it('runs from the end of an asynchronous call to the GPU start', () => {
    // API [100, 110], GPU starts at 150: 40 ns.
    expect(launchLatencyOfNs(150, 100, 110)).toBe(40);
  });

  it('runs from the start of a blocking call that returned after its GPU op began', () => {
    // cudaMemcpy [100, 900] with the copy at [130, 880]: 30 ns, never negative.
    expect(launchLatencyOfNs(130, 100, 900)).toBe(30);
  });

  it('is never negative', () => {
    expect(launchLatencyOfNs(90, 100, 900)).toBe(0);
  });
});
