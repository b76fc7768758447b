import process from 'node:process';
/** Prints one figure: `name: value unit`. */
export type Report = (name: string, value: number, unit: string) => void;

/** The Report `pnpm bench` uses: one line on stdout per figure. */
export const printFigure: Report = (name, value, unit) => {
  const shown = Number.isInteger(value) ? String(value) : value.toPrecision(4);
  process.stdout.write(`${name}: ${shown} ${unit}\n`);
};

/** A *.bench.ts file: measures and reports figures, each ratio measured in the same run. */
export interface BenchModule {
  run(report: Report): Promise<void>;
}

/** Median wall time of `fn` over `runs` runs, in ms, after two warm-up runs (JIT tiers). */
export function medianMs(fn: () => void, runs = 7): number {
  fn();
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** The median of the finite values, NaN when there are none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) {
    return Number.NaN;
  }
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
