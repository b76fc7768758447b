import type { OpColumns, ProcessInfo, SourceFormat, TrackInfo } from '@streamscope/trace';
import { OpKind, Trace, noRef } from '@streamscope/trace';
import { ImportError } from './import-error.ts';
import { assignRanks } from './rank-assignment.ts';

/** One rank's file, already imported. */
export interface RankInput {
  readonly trace: Trace;
  /** Named in errors and warnings. */
  readonly fileName: string;
}

export interface MergeRanksOptions {
  readonly title?: string;
}

/** Where each rank of a merged trace came from. */
export interface MergedRank {
  readonly rank: number;
  readonly fileName: string;
  readonly pids: readonly number[];
  /** ns added to every time of the file to put it on the merged trace's clock. */
  readonly shiftNs: number;
  /** Whether the file gave a wall clock (else it was placed at the others' start). */
  readonly clocked: boolean;
}

export interface MergeRanksResult {
  readonly trace: Trace;
  readonly ranks: readonly MergedRank[];
  readonly warnings: readonly string[];
}

/**
 * Opens several traces of one distributed job as one trace with a group per rank. A rank is a
 * file whose profiler named its rank (kineto `distributedInfo`), or each process with GPU work
 * of a file that names none (nsys: one export can hold every rank). Times line up on the wall
 * clock the files give (`meta.clockEpochNs`), exactly to the ns; a file without one starts where
 * the others do, with a warning. Throws ImportError naming the file for ranks that clash.
 */
export function mergeRanks(
  inputs: readonly RankInput[],
  options: MergeRanksOptions = {},
): MergeRanksResult {
  if (inputs.length === 0) {
    throw new ImportError({ file: '(no files)' }, 'give at least one trace to merge');
  }
  const warnings: string[] = [];
  const rankOf = assignRanks(inputs, warnings);
  const clock = alignClocks(inputs, warnings);
  const merged = new Trace({
    title: options.title ?? defaultTitle(inputs, rankOf),
    sourceFormat: commonFormat(inputs),
    producer: [...new Set(inputs.map((i) => i.trace.meta.producer))].join(', '),
    timingMethod: 'imported',
    originNs: clock.originNs,
    ...(clock.clocked ? { clockEpochNs: '0' } : {}),
  });
  const ranks: MergedRank[] = [];
  inputs.forEach((input, i) => {
    const ranksHere = rankOf[i]!;
    appendTrace(merged, input.trace, ranksHere, clock.shiftNs[i]!);
    for (const warning of input.trace.meta.warnings ?? []) {
      warnings.push(`${input.fileName}: ${warning}`);
    }
    const byRank = new Map<number, number[]>();
    for (const [pid, rank] of ranksHere) {
      byRank.set(rank, [...(byRank.get(rank) ?? []), pid]);
    }
    for (const [rank, pids] of byRank) {
      ranks.push({
        rank,
        fileName: input.fileName,
        pids,
        shiftNs: clock.shiftNs[i]!,
        clocked: input.trace.meta.clockEpochNs !== undefined,
      });
    }
  });
  ranks.sort((a, b) => a.rank - b.rank);
  merged.meta = { ...merged.meta, warnings };
  return { trace: merged, ranks, warnings };
}

interface Clock {
  /** The merged origin: epoch ns when clocked, else the first file's origin. */
  readonly originNs: string;
  readonly clocked: boolean;
  readonly shiftNs: readonly number[];
}

/**
 * Each file's origin on the wall clock is clockEpochNs + originNs (exact, as bigint); the merged
 * origin is the earliest, and each file's times move by the difference.
 */
function alignClocks(inputs: readonly RankInput[], warnings: string[]): Clock {
  const epochOrigins = inputs.map(({ trace }) =>
    trace.meta.clockEpochNs === undefined
      ? undefined
      : BigInt(trace.meta.clockEpochNs) + BigInt(trace.meta.originNs),
  );
  const known = epochOrigins.filter((o): o is bigint => o !== undefined);
  if (known.length === 0) {
    if (inputs.length > 1) {
      warnings.push(
        `no file gives a wall clock (${inputs.map((i) => i.fileName).join(', ')}): each starts at 0, so times across files do not line up`,
      );
    }
    return {
      originNs: inputs[0]!.trace.meta.originNs,
      clocked: false,
      shiftNs: inputs.map(() => 0),
    };
  }
  const originNs = known.reduce((a, b) => (b < a ? b : a));
  const shiftNs = epochOrigins.map((o, i) => {
    if (o === undefined) {
      warnings.push(
        `${inputs[i]!.fileName} gives no wall clock: its first event is placed at the job's start`,
      );
      return 0;
    }
    const shift = o - originNs;
    const spanNs = BigInt(Math.ceil(inputs[i]!.trace.spanNs()));
    if (shift + spanNs > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new ImportError(
        { file: inputs[i]!.fileName },
        `starts ${shift} ns after the earliest file: traces more than 2^53 ns (about 104 days) apart are not one job`,
      );
    }
    return Number(shift);
  });
  return { originNs: originNs.toString(), clocked: true, shiftNs };
}

/** Appends `source` to `out`: strings, structure and launch configs re-interned, times shifted. */
function appendTrace(
  out: Trace,
  source: Trace,
  rankOfPid: ReadonlyMap<number, number>,
  shiftNs: number,
): void {
  const strings = new Uint32Array(source.strings.count);
  for (let id = 0; id < strings.length; id++) {
    strings[id] = out.strings.intern(source.strings.get(id));
  }
  for (const device of source.devices) {
    if (!out.devices.some((d) => d.deviceId === device.deviceId)) {
      out.addDevice(device);
    }
  }
  for (const proc of source.processes) {
    out.addProcess(withRank(proc, rankOfPid.get(proc.pid)));
  }
  const tracks = source.tracks.map((track) =>
    out.addTrack(withRank(track, rankOfPid.get(track.pid))),
  );
  const launches = source.launches.slice(0).map((config) => out.launches.intern(config));
  const opBase = out.ops.count;
  appendOps(out, source.ops.columns(), { strings, tracks, launches, shiftNs });
  const flows = source.flows.columns();
  for (let f = 0; f < flows.count; f++) {
    out.flows.append(opBase + flows.fromOp[f]!, opBase + flows.toOp[f]!, flows.kind[f] as 0);
  }
  const ranges = source.ranges.columns();
  for (let r = 0; r < ranges.count; r++) {
    out.ranges.append({
      startNs: ranges.startNs[r]! + shiftNs,
      endNs: ranges.endNs[r]! + shiftNs,
      track: tracks[ranges.track[r]!]!,
      nameId: strings[ranges.nameId[r]!]!,
      domainId: strings[ranges.domainId[r]!]!,
      depth: ranges.depth[r]!,
      kind: ranges.kind[r] as 0,
    });
  }
}

interface IdMaps {
  readonly strings: Uint32Array;
  readonly tracks: readonly number[];
  readonly launches: readonly number[];
  readonly shiftNs: number;
}

function appendOps(out: Trace, ops: OpColumns, maps: IdMaps): void {
  const n = ops.count;
  const track = new Uint16Array(n);
  const nameId = new Uint32Array(n);
  const refId = new Uint32Array(n);
  const startNs = new Float64Array(n);
  const endNs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    track[i] = maps.tracks[ops.track[i]!]!;
    nameId[i] = maps.strings[ops.nameId[i]!]!;
    const ref = ops.refId[i]!;
    // A kernel's refId is its launch config; other ops' (event, graph ids) keep their file's numbering.
    refId[i] = ops.kind[i] === OpKind.Kernel && ref !== noRef ? maps.launches[ref]! : ref;
    // Integers below 2^53 (checked in alignClocks): the sum is exact.
    startNs[i] = ops.startNs[i]! + maps.shiftNs;
    endNs[i] = ops.endNs[i]! + maps.shiftNs;
  }
  out.ops.appendColumns({ ...ops, track, nameId, refId, startNs, endNs }, n);
  out.version++;
}

function withRank<T extends ProcessInfo | TrackInfo>(item: T, rank: number | undefined): T {
  return rank === undefined ? item : { ...item, rank };
}

function commonFormat(inputs: readonly RankInput[]): SourceFormat {
  const formats = new Set(inputs.map((i) => i.trace.meta.sourceFormat));
  return formats.size === 1 ? inputs[0]!.trace.meta.sourceFormat : 'streamscope-trace';
}

function defaultTitle(
  inputs: readonly RankInput[],
  rankOf: readonly ReadonlyMap<number, number>[],
): string {
  const count = new Set(rankOf.flatMap((m) => [...m.values()])).size;
  return `${count} ranks: ${inputs.map((i) => i.fileName).join(', ')}`;
}
