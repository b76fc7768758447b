import { OpFlag, noRef } from '@streamscope/trace';
import { newStagedOp } from '../op-staging.ts';
import { StagingColumn } from '../staging-columns.ts';
import { CallChains } from './call-chains.ts';
import type { LaneRegistry } from '../lane-registry.ts';
import type { StagedColumns, TraceBuilder } from '../trace-builder.ts';

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

  // Calls and GPU ops are kept by their index in the builder's staging, whose columns hold their
  // correlation ids, times and lanes already: a second copy of those was ~0.6 GB at 5M GPU ops
  // (28 bytes a call, 33 a GPU op), held at the import's peak.
  private apiCount = 0;
  /** Each call's op index in the builder's staging. */
  private readonly apiOp = new StagingColumn(Uint32Array);
  /** The few calls that carry a size (ROCm's hipMemcpy*): call index, ascending, and its bytes. */
  private sizedCount = 0;
  private readonly sizedCall = new StagingColumn(Uint32Array);
  private readonly sizedBytes = new StagingColumn(Float64Array);
  /** The calls by correlation id, made once they are all read (`resolve`). */
  private chains: CallChains | undefined;

  private gpuCount = 0;
  private readonly gpuOp = new StagingColumn(Uint32Array);
  private readonly gpuKey = new StagingColumn(Uint32Array);
  private readonly gpuNeedsBytes = new StagingColumn(Uint8Array);

  private readonly syncs: StreamlessSync[] = [];

  /** The calls that launched a CUDA/HIP graph, by index: their GPU ops ran as its nodes. */
  private readonly graphLaunches = new Set<number>();

  /** The builder's staging while resolving: each op's lane, correlation id and start. */
  private staged: StagedColumns | undefined;
  private lanes: LaneRegistry | undefined;

  /**
   * The API call staged as op `op` with correlation id `corr` (0: none, not kept); `bytes` its
   * size argument, NaN when it has none.
   */
  addApiCall(op: number, corr: number, bytes: number, graphLaunch: boolean): void {
    if (corr === 0) {
      return;
    }
    const i = this.apiCount++;
    if (graphLaunch) {
      this.graphLaunches.add(i);
    }
    if (i >= this.apiOp.data.length) {
      this.apiOp.resize(Math.max(i + 1, this.apiOp.data.length * 2, this.roomHint()), i);
    }
    this.apiOp.data[i] = op;
    if (!Number.isNaN(bytes)) {
      const k = this.sizedCount++;
      this.sizedCall.at(k)[k] = i;
      this.sizedBytes.at(k)[k] = bytes;
    }
  }

  /**
   * GPU op `op` (the builder's index, staged on its provisional lane) of the GPU event's own
   * process `gpuKey` (kineto: the device index as pid, interned). `needsBytes`: a copy or memset
   * that carried no size, to be taken from its API call.
   */
  addGpuOp(op: number, gpuKey: number, needsBytes: boolean): void {
    const i = this.gpuCount++;
    if (i >= this.gpuOp.data.length) {
      growAll(
        [this.gpuOp, this.gpuKey, this.gpuNeedsBytes],
        i,
        Math.max(this.gpuOp.data.length * 2, this.roomHint()),
      );
    }
    this.gpuOp.data[i] = op;
    this.gpuKey.data[i] = gpuKey;
    this.gpuNeedsBytes.data[i] = needsBytes ? 1 : 0;
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
    const staged = builder.stagedColumns();
    this.staged = staged;
    this.lanes = builder.lanes;
    const chains = this.callChains(staged);
    this.chains = chains;
    // Each GPU op's first call by its id, looked up once for the votes and the pick.
    const firsts = new Int32Array(this.gpuCount);
    for (let g = 0; g < this.gpuCount; g++) {
      const corr = staged.corr[this.gpuOp.data[g]!]!;
      firsts[g] = corr === 0 ? -1 : chains.first(corr);
    }
    const preferred = this.preferredOwners(chains, firsts);
    let unknownSizes = 0;
    for (let g = 0; g < this.gpuCount; g++) {
      const op = this.gpuOp.data[g]!;
      const key = this.gpuKey.data[g]!;
      const api = this.pickFrom(firsts[g]!, preferred.get(key), staged.startNs[op]!);
      const owner = api >= 0 ? this.apiProc(api) : (preferred.get(key) ?? provisionalProc);
      if (owner !== provisionalProc) {
        builder.moveOp(op, owner, builder.lanes.sameStreamIn(owner, staged.lane[op]!));
      }
      if (this.graphLaunches.size > 0 && this.graphLaunches.has(api)) {
        builder.addOpFlags(op, OpFlag.InGraph);
      }
      if (this.gpuNeedsBytes.data[g] === 1) {
        const bytes = api >= 0 ? this.apiBytes(api) : Number.NaN;
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
    // Every sync's call picked before any sync is staged: staging an op may move the columns.
    const syncCalls = this.syncs.map((sync) =>
      this.pick(sync.correlationId, preferred.get(sync.gpuKey), sync.startNs),
    );
    const callLanes = syncCalls.map((api) => (api >= 0 ? staged.lane[this.apiOp.data[api]!]! : -1));
    this.staged = undefined;
    let unplacedSyncs = 0;
    const op = newStagedOp();
    for (const [k, sync] of this.syncs.entries()) {
      op.kind = sync.kind;
      op.startNs = sync.startNs;
      op.endNs = sync.endNs;
      if (callLanes[k]! >= 0) {
        op.lane = callLanes[k]!;
        op.proc = builder.lanes.laneProc(op.lane);
      } else {
        unplacedSyncs++;
        op.proc = preferred.get(sync.gpuKey) ?? provisionalProc;
        op.lane = builder.lanes.hostLane(op.proc, unknownCallerTidBase + sync.deviceId);
        builder.lanes.nameLane(op.lane, `GPU ${sync.deviceId} syncs (calling thread unknown)`);
      }
      op.nameRef = sync.nameRef;
      // Joined to the call that waited, as the profiler's correlation id says.
      op.correlationId = sync.correlationId;
      op.refId = noRef;
      const at = builder.addOp(op);
      if (sync.recordCorrelationId > 0) {
        builder.waitsOnRecordCall(at, sync.recordCorrelationId);
      }
    }
    this.release();
    return unplacedSyncs;
  }

  /** The calls by correlation id (their ids gathered from the staging for as long as it takes). */
  private callChains(staged: StagedColumns): CallChains {
    const ids = new Uint32Array(this.apiCount);
    for (let a = 0; a < ids.length; a++) {
      ids[a] = staged.corr[this.apiOp.data[a]!]!;
    }
    return new CallChains(ids, ids.length);
  }

  /** Call `api`'s process: its host lane's. */
  private apiProc(api: number): number {
    return this.lanes!.laneProc(this.staged!.lane[this.apiOp.data[api]!]!);
  }

  /** Call `api`'s size argument; NaN when it has none. */
  private apiBytes(api: number): number {
    const calls = this.sizedCall.data;
    let lo = 0;
    let hi = this.sizedCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (calls[mid]! < api) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < this.sizedCount && calls[lo] === api ? this.sizedBytes.data[lo]! : Number.NaN;
  }

  /** Lets go of the calls, GPU ops and chains once resolved (it resolves once). */
  private release(): void {
    for (const column of [
      this.apiOp,
      this.sizedCall,
      this.sizedBytes,
      this.gpuOp,
      this.gpuKey,
      this.gpuNeedsBytes,
    ]) {
      column.release();
    }
    this.chains = undefined;
    this.lanes = undefined;
    this.syncs.length = 0;
    this.apiCount = 0;
    this.sizedCount = 0;
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
      const proc = this.apiProc(first);
      let oneProcess = true;
      for (let a = next[first]!; a >= 0 && oneProcess; a = next[a]!) {
        oneProcess = this.apiProc(a) === proc;
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
      anyPreferred ||= this.apiProc(a) === preferredProc;
    }
    const startOf = (a: number): number => this.staged!.startNs[this.apiOp.data[a]!]!;
    let before = -1;
    let earliest = -1;
    for (let a = first; a >= 0; a = next[a]!) {
      if (anyPreferred && this.apiProc(a) !== preferredProc) {
        continue;
      }
      const s = startOf(a);
      if (s <= startNs && (before < 0 || s > startOf(before))) {
        before = a;
      }
      if (earliest < 0 || s < startOf(earliest)) {
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
