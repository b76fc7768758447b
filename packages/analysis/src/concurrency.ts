import type { AnalysisContext } from './context.ts';
import type { ConcurrencyProfile } from './types.ts';

/**
 * How many kernels and how many copies run at once: total time at each level, and a
 * time-weighted average per bin of the window. Sweeps the sorted start and end columns.
 */
export function concurrencyProfile(ctx: AnalysisContext): ConcurrencyProfile {
  const bins = Math.max(1, ctx.options.concurrencyBins);
  const fromNs = ctx.window.fromNs;
  const spanNs = Math.max(0, ctx.window.toNs - fromNs);
  const binNs = spanNs / bins;
  const kernelNsAtLevel: number[] = [0];
  const copyNsAtLevel: number[] = [0];
  const kernelsPerBin = new Float64Array(bins);
  const copiesPerBin = new Float64Array(bins);
  for (const device of ctx.devices) {
    sweepLevels(
      device.sortedStarts[0]!,
      device.sortedEnds[0]!,
      kernelNsAtLevel,
      kernelsPerBin,
      fromNs,
      binNs,
    );
    sweepLevels(
      device.copySortedStarts,
      device.copySortedEnds,
      copyNsAtLevel,
      copiesPerBin,
      fromNs,
      binNs,
    );
  }
  // Level 0 is the rest of the window.
  kernelNsAtLevel[0] = Math.max(0, spanNs * ctx.devices.length - sumFrom(kernelNsAtLevel, 1));
  copyNsAtLevel[0] = Math.max(0, spanNs * ctx.devices.length - sumFrom(copyNsAtLevel, 1));
  return {
    kernelNsAtLevel,
    copyNsAtLevel,
    maxKernels: kernelNsAtLevel.length - 1,
    maxCopies: copyNsAtLevel.length - 1,
    binFromNs: fromNs,
    binNs,
    kernelsPerBin: Array.from(kernelsPerBin, (v) => (binNs > 0 ? v / binNs : 0)),
    copiesPerBin: Array.from(copiesPerBin, (v) => (binNs > 0 ? v / binNs : 0)),
  };
}

function sumFrom(values: readonly number[], from: number): number {
  let total = 0;
  for (let k = from; k < values.length; k++) {
    total += values[k]!;
  }
  return total;
}

/** Adds time-at-level and level×time per bin for one set of intervals (sorted starts and ends). */
function sweepLevels(
  starts: Float64Array,
  ends: Float64Array,
  nsAtLevel: number[],
  levelNsPerBin: Float64Array,
  fromNs: number,
  binNs: number,
): void {
  const n = starts.length;
  let i = 0;
  let j = 0;
  let level = 0;
  let lastNs = n > 0 ? starts[0]! : 0;
  while (j < n) {
    const takeStart = i < n && starts[i]! <= ends[j]!;
    const nowNs = takeStart ? starts[i]! : ends[j]!;
    if (level > 0 && nowNs > lastNs) {
      while (nsAtLevel.length <= level) {
        nsAtLevel.push(0);
      }
      nsAtLevel[level]! += nowNs - lastNs;
      addToBins(levelNsPerBin, fromNs, binNs, lastNs, nowNs, level);
    }
    lastNs = nowNs;
    if (takeStart) {
      level++;
      i++;
    } else {
      level--;
      j++;
    }
  }
}

function addToBins(
  perBin: Float64Array,
  fromNs: number,
  binNs: number,
  loNs: number,
  hiNs: number,
  level: number,
): void {
  if (binNs <= 0) {
    return;
  }
  const bins = perBin.length;
  let b = Math.max(0, Math.floor((loNs - fromNs) / binNs));
  const last = Math.min(bins - 1, Math.floor((hiNs - fromNs) / binNs));
  for (; b <= last; b++) {
    const binLo = fromNs + b * binNs;
    const overlap = Math.min(hiNs, binLo + binNs) - Math.max(loNs, binLo);
    if (overlap > 0) {
      perBin[b]! += overlap * level;
    }
  }
}
