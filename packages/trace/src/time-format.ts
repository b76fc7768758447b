/** Formats a duration in ns with a unit that fits: "850 ns", "12.5 µs", "3.20 ms", "1.500 s". */
export function formatDurationNs(durNs: number): string {
  const abs = Math.abs(durNs);
  if (abs < 1e3) {
    return `${Math.round(durNs)} ns`;
  }
  if (abs < 1e6) {
    return `${trim(durNs / 1e3)} µs`;
  }
  if (abs < 1e9) {
    return `${trim(durNs / 1e6)} ms`;
  }
  return `${trim(durNs / 1e9)} s`;
}

function trim(value: number): string {
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 1 : abs >= 10 ? 2 : 3;
  return String(Number(value.toFixed(digits)));
}

/** Formats bytes with binary units: "512 B", "16 MiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : Number(value.toFixed(2))} ${units[unit]}`;
}

/** Bandwidth in GB/s (10^9 bytes per second, as CUDA samples and nsys report it). */
export function bandwidthGBps(bytes: number, durNs: number): number {
  return durNs > 0 ? bytes / durNs : 0;
}
