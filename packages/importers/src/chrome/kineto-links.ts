import { OpFlag, noRef } from '@streamscope/trace';
import { newStagedOp } from '../op-staging.ts';
import { StagingColumn } from '../staging-columns.ts';
import { CallChains } from './call-chains.ts';
import type { TraceBuilder } from '../trace-builder.ts';

/** A sync record with no stream (Event Sync, Context Sync): placed on its caller's thread. */
export interface StreamlessSync {
  readonly gpuKey: number;
  readonly deviceId: number;
  readonly correlationId: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly nameRef: number;
  readonly kind: number;
  readonly recordCorrelationId: number;
}

// Host rows for syncs whose calling thread is unknown: one per device, above any real tid.
const unknownCallerTidBase = 0x7f000000;

/**
 * Joins kineto GPU ops to the CUDA/HIP API calls that issued them by correlation id, the way
 * the profiler means it: a correlation id is unique within the process that made the call, so
 * when two processes in one file reuse ids, an op belongs to the process its own GPU pid
 * (device) is otherwise seen with. Each GPU op then moves to its owner's process and lanes,
 * takes a size its API call carried (ROCm writes it on hipMemcpy*, not on the copy), is flagged
 * in-graph when that call launched a graph (kineto gives each of a graph's kernels the
 * correlation id of its cudaGraphLaunch), and a sync with no stream goes on the thread of the
 * call that waited.
 */
export class KinetoLinks {
  /**
   * @param roomHint what the tables may grow to at once (the op staging's room, projected from
   *   the file's size: calls and GPU ops are each at most the ops), not doubling on the way.
   */
  constructor(private readonly roomHint: () => number = () => 0) {}

  private apiCount = 0;
  private readonly apiCorr = new StagingColumn(Uint32Array);
  private readonly apiProc = new StagingColumn(Uint32Array);
  private readonly apiLane = new StagingColumn(Uint32Array);
  private readonly apiStartNs = new StagingColumn(Float64Array);
  /** `args.bytes` of the call; NaN when it has none. */
  private readonly apiBytes = new StagingColumn(Float64Array);
  /** The calls by correlation id, made once they are all read (`resolve`). */
  private chains: CallChains | undefined;

  private gpuCount = 0;
  private readonly gpuOp = new StagingColumn(Uint32Array);
  private readonly gpuKey = new StagingColumn(Uint32Array);
  private readonly gpuCorr = new StagingColumn(Uint32Array);
  private readonly gpuDevice = new StagingColumn(Int32Array);
  private readonly gpuContext = new StagingColumn(Uint32Array);
  private readonly gpuStream = new StagingColumn(Uint32Array);
  private readonly gpuStartNs = new StagingColumn(Float64Array);
  private readonly gpuNeedsBytes = new StagingColumn(Uint8Array);

  private readonly syncs: StreamlessSync[] = [];

  /** The calls that launched a CUDA/HIP graph, by index: their GPU ops ran as its nodes. */
  private readonly graphLaunches = new Set<number>();

  addApiCall(
    corr: number,
    proc: number,
    lane: number,
    startNs: number,
    bytes: number,
    graphLaunch: boolean,
  ): void {
    if (corr === 0) {
      return;
    }
    const i = this.apiCount++;
    if (graphLaunch) {
      this.graphLaunches.add(i);
    }
    if (i >= this.apiCorr.data.length) {
      growAll(this.apiColumns(), i, Math.max(this.apiCorr.data.length * 2, this.roomHint()));
    }
    // Each column's store site sees one array type (a shared `at` would see all of them).
    this.apiCorr.data[i] = corr;
    this.apiProc.data[i] = proc;
    this.apiLane.data[i] = lane;
    this.apiStartNs.data[i] = startNs;
    this.apiBytes.data[i] = bytes;
  }

  /**
   * GPU op `op` (the builder's index) of the GPU event's own process `gpuKey` (kineto: the
   * device index as pid, interned), on (device, context, stream). `needsBytes`: a copy or memset
   * that carried no size, to be taken from its API call.
   */
  addGpuOp(
    op: number,
    gpuKey: number,
    corr: number,
    deviceId: number,
    contextId: number,
    streamId: number,
    startNs: number,
    needsBytes: boolean,
  ): void {
    const i = this.gpuCount++;
    if (i >= this.gpuOp.data.length) {
      growAll(this.gpuColumns(), i, Math.max(this.gpuOp.data.length * 2, this.roomHint()));
    }
    this.gpuOp.data[i] = op;
    this.gpuKey.data[i] = gpuKey;
    this.gpuCorr.data[i] = corr;
    this.gpuDevice.data[i] = deviceId;
    this.gpuContext.data[i] = contextId;
    this.gpuStream.data[i] = streamId;
    this.gpuStartNs.data[i] = startNs;
    this.gpuNeedsBytes.data[i] = needsBytes ? 1 : 0;
  }

  private apiColumns(): StagingColumn<Uint32Array | Float64Array | Int32Array>[] {
    return [this.apiCorr, this.apiProc, this.apiLane, this.apiStartNs, this.apiBytes];
  }

  private gpuColumns(): StagingColumn<Uint32Array | Float64Array | Int32Array | Uint8Array>[] {
    return [
      this.gpuOp,
      this.gpuKey,
      this.gpuCorr,
      this.gpuDevice,
      this.gpuContext,
      this.gpuStream,
      this.gpuStartNs,
      this.gpuNeedsBytes,
    ];
  }

  /** Streamless syncs are rare (one per cudaDeviceSynchronize/cudaEventSynchronize): kept as objects. */
  addStreamlessSync(sync: StreamlessSync): void {
    this.syncs.push(sync);
  }

  /**
   * Moves every GPU op to its owner (the provisional process where it has none), fills sizes
   * from API calls, and adds the streamless syncs on their callers' threads; one whose call is
   * missing goes on a host row of its device ("GPU 0 syncs (calling thread unknown)"), never on
   * a stream. Returns how many syncs went there.
   */
  resolve(builder: TraceBuilder, provisionalProc: number): number {
    const chains = new CallChains(this.apiCorr.data, this.apiCount);
    this.chains = chains;
    // Each GPU op's first call by its id, looked up once for the votes and the pick.
    const firsts = new Int32Array(this.gpuCount);
    for (let g = 0; g < this.gpuCount; g++) {
      const corr = this.gpuCorr.data[g]!;
      firsts[g] = corr === 0 ? -1 : chains.first(corr);
    }
    const preferred = this.preferredOwners(chains, firsts);
    let unknownSizes = 0;
    for (let g = 0; g < this.gpuCount; g++) {
      const key = this.gpuKey.data[g]!;
      const api = this.pickFrom(firsts[g]!, preferred.get(key), this.gpuStartNs.data[g]!);
      const owner = api >= 0 ? this.apiProc.data[api]! : (preferred.get(key) ?? provisionalProc);
      const op = this.gpuOp.data[g]!;
      if (owner !== provisionalProc) {
        const lane = builder.lanes.gpuLane(
          owner,
          this.gpuDevice.data[g]!,
          this.gpuContext.data[g]!,
          this.gpuStream.data[g]!,
        );
        builder.moveOp(op, owner, lane);
      }
      if (this.graphLaunches.size > 0 && this.graphLaunches.has(api)) {
        builder.addOpFlags(op, OpFlag.InGraph);
      }
      if (this.gpuNeedsBytes.data[g] === 1) {
        const bytes = api >= 0 ? this.apiBytes.data[api]! : Number.NaN;
        if (Number.isFinite(bytes) && bytes >= 0) {
          builder.setOpBytes(op, bytes, 0);
        } else {
          builder.setOpBytes(op, 0, OpFlag.BytesUnknown);
          unknownSizes++;
        }
      }
    }
    if (unknownSizes > 0) {
      builder.warnings.add(
        `${unknownSizes} copies or memsets carry no size, on themselves or on their API call; their bandwidth is unknown`,
      );
    }
    let unplacedSyncs = 0;
    const staged = newStagedOp();
    for (const sync of this.syncs) {
      const api = this.pick(sync.correlationId, preferred.get(sync.gpuKey), sync.startNs);
      staged.kind = sync.kind;
      staged.startNs = sync.startNs;
      staged.endNs = sync.endNs;
      if (api >= 0) {
        staged.proc = this.apiProc.data[api]!;
        staged.lane = this.apiLane.data[api]!;
      } else {
        unplacedSyncs++;
        staged.proc = preferred.get(sync.gpuKey) ?? provisionalProc;
        staged.lane = builder.lanes.hostLane(staged.proc, unknownCallerTidBase + sync.deviceId);
        builder.lanes.nameLane(staged.lane, `GPU ${sync.deviceId} syncs (calling thread unknown)`);
      }
      staged.nameRef = sync.nameRef;
      // Joined to the call that waited, as the profiler's correlation id says.
      staged.correlationId = sync.correlationId;
      staged.refId = noRef;
      const at = builder.addOp(staged);
      if (sync.recordCorrelationId > 0) {
        builder.waitsOnRecordCall(at, sync.recordCorrelationId);
      }
    }
    this.release();
    return unplacedSyncs;
  }

  /**
   * Lets go of the calls, GPU ops and chains once resolved (it resolves once): at 5M GPU ops
   * they are ~0.4 GB, which the trace's build would otherwise hold beside its own indexes.
   */
  private release(): void {
    for (const column of [
      this.apiCorr,
      this.apiProc,
      this.apiLane,
      this.apiStartNs,
      this.apiBytes,
      this.gpuOp,
      this.gpuKey,
      this.gpuCorr,
      this.gpuDevice,
      this.gpuContext,
      this.gpuStream,
      this.gpuStartNs,
      this.gpuNeedsBytes,
    ]) {
      column.release();
    }
    this.chains = undefined;
    this.syncs.length = 0;
    this.apiCount = 0;
    this.gpuCount = 0;
  }

  /**
   * Per GPU key, the process whose calls it is linked to most often by ids that only one
   * process used: it decides between processes that reuse an id. `firsts[g]`: GPU op g's first
   * call by its id, or -1.
   */
  private preferredOwners(chains: CallChains, firsts: Int32Array): Map<number, number> {
    const votes = new Map<number, Map<number, number>>();
    const next = chains.next;
    // Ops come in runs of one key and one process: counted per run, added up per run's end.
    let runKey = -1;
    let runProc = -1;
    let runVotes = 0;
    const addRun = (): void => {
      if (runVotes > 0) {
        const byProc = votes.get(runKey) ?? new Map<number, number>();
        byProc.set(runProc, (byProc.get(runProc) ?? 0) + runVotes);
        votes.set(runKey, byProc);
      }
    };
    for (let g = 0; g < this.gpuCount; g++) {
      const first = firsts[g]!;
      if (first < 0) {
        continue;
      }
      const proc = this.apiProc.data[first]!;
      let oneProcess = true;
      for (let a = next[first]!; a >= 0; a = next[a]!) {
        oneProcess &&= this.apiProc.data[a] === proc;
      }
      if (oneProcess) {
        const key = this.gpuKey.data[g]!;
        if (key !== runKey || proc !== runProc) {
          addRun();
          runKey = key;
          runProc = proc;
          runVotes = 0;
        }
        runVotes++;
      }
    }
    addRun();
    const preferred = new Map<number, number>();
    for (const [key, byProc] of votes) {
      let best = -1;
      let bestVotes = 0;
      for (const [proc, n] of byProc) {
        if (n > bestVotes) {
          best = proc;
          bestVotes = n;
        }
      }
      preferred.set(key, best);
    }
    return preferred;
  }

  /**
   * The API call of correlation id `corr` for a GPU op that started at `startNs`: the only one,
   * or among several (processes reusing the id) those of the preferred process, then the latest
   * that began at or before the op, else the earliest. -1 when no call has the id.
   */
  private pick(corr: number, preferredProc: number | undefined, startNs: number): number {
    return this.pickFrom(corr === 0 ? -1 : this.chains!.first(corr), preferredProc, startNs);
  }

  /** `pick` from the first call with the id (-1: none). */
  private pickFrom(first: number, preferredProc: number | undefined, startNs: number): number {
    const next = this.chains!.next;
    if (first < 0) {
      return -1;
    }
    if (next[first]! < 0) {
      return first;
    }
    let anyPreferred = false;
    for (let a = first; a >= 0; a = next[a]!) {
      anyPreferred ||= this.apiProc.data[a] === preferredProc;
    }
    let before = -1;
    let earliest = -1;
    for (let a = first; a >= 0; a = next[a]!) {
      if (anyPreferred && this.apiProc.data[a] !== preferredProc) {
        continue;
      }
      const s = this.apiStartNs.data[a]!;
      if (s <= startNs && (before < 0 || s > this.apiStartNs.data[before]!)) {
        before = a;
      }
      if (earliest < 0 || s < this.apiStartNs.data[earliest]!) {
        earliest = a;
      }
    }
    return before >= 0 ? before : earliest;
  }
}

/** Moves columns that hold `used` values each to arrays of `room` (at least one more). */
function growAll(
  columns: StagingColumn<Uint32Array | Float64Array | Int32Array | Uint8Array>[],
  used: number,
  room: number,
): void {
  for (const column of columns) {
    column.resize(Math.max(used + 1, room), used);
  }
}
