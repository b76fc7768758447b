import { describe, expect, it } from 'vitest';
import { bandwidthGBps, formatBytes, formatDurationNs } from './time-format.ts';

describe('formatDurationNs', () => {
  it('picks the unit by magnitude and keeps about four significant digits', () => {
    expect(formatDurationNs(850)).toBe('850 ns');
    expect(formatDurationNs(12_500)).toBe('12.5 µs');
    expect(formatDurationNs(3_200_000)).toBe('3.2 ms');
    expect(formatDurationNs(1_500_000_000)).toBe('1.5 s');
    expect(formatDurationNs(123_456_789)).toBe('123.5 ms');
  });
});

describe('formatBytes and bandwidth', () => {
  it('uses binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(16 * 1024 * 1024)).toBe('16 MiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });

  it('computes GB/s as bytes per ns, and 0 for a zero duration', () => {
    // 16 MiB in 1 ms = 16.777 GB/s
    expect(bandwidthGBps(16 * 1024 * 1024, 1e6)).toBeCloseTo(16.777, 3);
    expect(bandwidthGBps(100, 0)).toBe(0);
  });
});
