import { describe, expect, it } from 'vitest';
import { syntheticTrace } from '../test-traces.ts';
import { endBatchMaxBytes, endCountsOf } from './end-counts.ts';
import { saveTrace } from './trace-encoder.ts';

describe('endCountsOf', () => {
  const trace = syntheticTrace(40_000);
  const file = saveTrace(trace);

  it("reads a whole container's counts from its last bytes", () => {
    const counts = endCountsOf(file.subarray(file.length - endBatchMaxBytes));
    expect(counts).toEqual({
      strings: trace.strings.count,
      devices: trace.devices.length,
      processes: trace.processes.length,
      tracks: trace.tracks.length,
      launches: trace.launches.count,
      ops: 40_000,
      flows: trace.flows.count,
      ranges: trace.ranges.count,
    });
    // From the whole file too (a small one is read whole).
    expect(endCountsOf(file)).toEqual(counts);
  });

  it('is undefined for a container without its end (cut short, or a live stream so far)', () => {
    expect(endCountsOf(file.subarray(0, file.length - 1))).toBeUndefined();
    expect(endCountsOf(file.subarray(0, file.length - endBatchMaxBytes))).toBeUndefined();
    expect(endCountsOf(new Uint8Array(0))).toBeUndefined();
    expect(endCountsOf(new TextEncoder().encode('{"traceEvents":[]}'))).toBeUndefined();
  });
});
