import type { Trace } from '@streamscope/trace';
import { ImportError } from './import-error.ts';

interface Named {
  readonly trace: Trace;
  readonly fileName: string;
}

/** A process group that becomes one rank: the pids of one file that share it. */
interface Unit {
  readonly input: number;
  readonly pids: readonly number[];
}

/**
 * Per input, pid → rank. A rank the file states (a process's `rank` in a merged trace, or kineto
 * `distributedInfo` for the whole file) is kept; two files claiming one rank, or stating
 * different world sizes, is an error naming both. A file that states none is one rank if it has
 * at most one process with GPU work, else each such process is one (nsys exports of a whole
 * job); these take the lowest free ranks in file and pid order. Host-only processes beside
 * several GPU processes belong to no rank.
 */
export function assignRanks(inputs: readonly Named[], warnings: string[]): Map<number, number>[] {
  const out = inputs.map(() => new Map<number, number>());
  /** rank → the input that holds it, and how messages name it. */
  const claimedBy = new Map<number, { input: number; label: string }>();
  const claim = (rank: number, input: number, pids: readonly number[], label: string): void => {
    const other = claimedBy.get(rank);
    if (other !== undefined && other.input !== input) {
      throw new ImportError(
        { file: inputs[input]!.fileName },
        `is rank ${rank}, and so is ${other.label}: give each rank's trace once`,
      );
    }
    claimedBy.set(rank, { input, label });
    for (const pid of pids) {
      out[input]!.set(pid, rank);
    }
  };
  const pending: Unit[] = [];
  let worldSize: { size: number; file: string } | undefined;
  inputs.forEach(({ trace, fileName }, input) => {
    const pids = pidsOf(trace);
    const stated = trace.processes.filter((p) => p.rank !== undefined);
    const distributed = trace.meta.distributed;
    if (stated.length > 0) {
      for (const p of stated) {
        claim(p.rank!, input, [p.pid], `${fileName} (pid ${p.pid})`);
      }
    } else if (distributed !== undefined) {
      if (worldSize !== undefined && worldSize.size !== distributed.worldSize) {
        throw new ImportError(
          { file: fileName, path: 'distributedInfo.world_size' },
          `world_size is ${distributed.worldSize} but ${worldSize.file} says ${worldSize.size}: these are not ranks of one job`,
        );
      }
      worldSize = { size: distributed.worldSize, file: fileName };
      claim(distributed.rank, input, pids.all, fileName);
    } else if (pids.gpu.length <= 1) {
      pending.push({ input, pids: pids.all });
    } else {
      for (const pid of pids.gpu) {
        pending.push({ input, pids: [pid] });
      }
      const hostOnly = pids.all.filter((pid) => !pids.gpu.includes(pid));
      if (hostOnly.length > 0) {
        warnings.push(
          `${fileName}: processes ${hostOnly.join(', ')} have no GPU work and belong to no rank`,
        );
      }
    }
  });
  let next = 0;
  for (const unit of pending) {
    while (claimedBy.has(next)) {
      next++;
    }
    claim(
      next,
      unit.input,
      unit.pids,
      `${inputs[unit.input]!.fileName} (pid ${unit.pids.join(', ')})`,
    );
  }
  if (worldSize !== undefined && claimedBy.size < worldSize.size) {
    const missing = [];
    for (let r = 0; r < worldSize.size && missing.length < 8; r++) {
      if (!claimedBy.has(r)) {
        missing.push(r);
      }
    }
    warnings.push(
      `${claimedBy.size} of world_size ${worldSize.size} ranks are here; missing rank ${missing.join(', ')}${claimedBy.size + missing.length < worldSize.size ? ', …' : ''}`,
    );
  }
  return out;
}

/** Every pid of a trace (processes and tracks), and those with GPU stream tracks, ascending. */
function pidsOf(trace: Trace): { all: number[]; gpu: number[] } {
  const all = new Set<number>(trace.processes.map((p) => p.pid));
  const gpu = new Set<number>();
  for (const track of trace.tracks) {
    all.add(track.pid);
    if (track.kind === 'gpu-stream') {
      gpu.add(track.pid);
    }
  }
  const ascending = (s: Set<number>): number[] => [...s].sort((a, b) => a - b);
  return { all: ascending(all), gpu: ascending(gpu) };
}
