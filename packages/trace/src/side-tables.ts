import { GrowableColumn } from './growable.ts';

/** How two ops are linked. Values are part of the codec. */
export const FlowKind = {
  /** cudaEventRecord → cudaStreamWaitEvent / cudaEventSynchronize that waited on it. */
  EventRecordToWait: 0,
  /** Host API call → the GPU op it enqueued (joined by process and correlation id). */
  ApiToGpu: 1,
  /** Graph launch → a node that ran as part of it. */
  GraphToNode: 2,
} as const;
export type FlowKind = (typeof FlowKind)[keyof typeof FlowKind];

export interface FlowColumns {
  readonly count: number;
  readonly fromOp: Uint32Array;
  readonly toOp: Uint32Array;
  readonly kind: Uint8Array;
}

/** Links between ops, by op index. */
export class FlowTable {
  private n = 0;
  private readonly fromCol = new GrowableColumn(Uint32Array, 256);
  private readonly toCol = new GrowableColumn(Uint32Array, 256);
  private readonly kindCol = new GrowableColumn(Uint8Array, 256);

  get count(): number {
    return this.n;
  }

  append(fromOp: number, toOp: number, kind: FlowKind): number {
    const i = this.n;
    this.fromCol.ensure(i + 1)[i] = fromOp;
    this.toCol.ensure(i + 1)[i] = toOp;
    this.kindCol.ensure(i + 1)[i] = kind;
    this.n = i + 1;
    return i;
  }

  /** Pre-sizes the columns for a bulk load of `capacity` flows. */
  reserve(capacity: number): void {
    this.fromCol.ensure(capacity);
    this.toCol.ensure(capacity);
    this.kindCol.ensure(capacity);
  }

  /** Appends `count` flows given as columns (the codec's decode path). */
  appendColumns(source: Omit<FlowColumns, 'count'>, count: number): void {
    const first = this.n;
    const need = first + count;
    this.fromCol.ensure(need).set(source.fromOp.subarray(0, count), first);
    this.toCol.ensure(need).set(source.toOp.subarray(0, count), first);
    this.kindCol.ensure(need).set(source.kind.subarray(0, count), first);
    this.n = need;
  }

  columns(): FlowColumns {
    return {
      count: this.n,
      fromOp: this.fromCol.view(this.n),
      toOp: this.toCol.view(this.n),
      kind: this.kindCol.view(this.n),
    };
  }

  /** Flows that start or end at `op`. Linear: used for one selected op at a time. */
  touching(op: number): number[] {
    const found: number[] = [];
    const from = this.fromCol.buffer;
    const to = this.toCol.buffer;
    for (let i = 0; i < this.n; i++) {
      if (from[i] === op || to[i] === op) {
        found.push(i);
      }
    }
    return found;
  }

  byteSize(): number {
    return (
      this.fromCol.buffer.byteLength + this.toCol.buffer.byteLength + this.kindCol.buffer.byteLength
    );
  }
}

/** NVTX-style range flavours. Values are part of the codec. */
export const RangeKind = {
  /** nvtxRangePush/Pop: nested per thread. */
  PushPop: 0,
  /** nvtxRangeStart/End: may cross threads, not nested. */
  StartEnd: 1,
  /** nvtxMark: an instant. */
  Mark: 2,
} as const;
export type RangeKind = (typeof RangeKind)[keyof typeof RangeKind];

export interface RangeInput {
  startNs: number;
  endNs: number;
  /** The host-thread track the range was pushed on. */
  track: number;
  nameId: number;
  /** Interned domain name; 0 = the default domain. */
  domainId: number;
  /** Nesting depth within its thread, 0 = outermost. */
  depth: number;
  kind: RangeKind;
}

export interface RangeColumns {
  readonly count: number;
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  readonly track: Uint16Array;
  readonly nameId: Uint32Array;
  readonly domainId: Uint32Array;
  readonly depth: Uint8Array;
  readonly kind: Uint8Array;
}

export class RangeTable {
  private n = 0;
  private readonly startNsCol = new GrowableColumn(Float64Array, 256);
  private readonly endNsCol = new GrowableColumn(Float64Array, 256);
  private readonly trackCol = new GrowableColumn(Uint16Array, 256);
  private readonly nameIdCol = new GrowableColumn(Uint32Array, 256);
  private readonly domainIdCol = new GrowableColumn(Uint32Array, 256);
  private readonly depthCol = new GrowableColumn(Uint8Array, 256);
  private readonly kindCol = new GrowableColumn(Uint8Array, 256);

  get count(): number {
    return this.n;
  }

  /** Makes room for `more` ranges past those held (a bulk load: one copy, no doubling). */
  reserve(more: number): void {
    const capacity = this.n + more;
    for (const column of [
      this.startNsCol,
      this.endNsCol,
      this.trackCol,
      this.nameIdCol,
      this.domainIdCol,
      this.depthCol,
      this.kindCol,
    ]) {
      column.reserve(capacity);
    }
  }

  /**
   * Takes whole columns as the table's own, without a copy (an importer's bulk load: the table
   * and a second copy of it are never held together). An empty table only; depths above 255
   * must already be clamped, as `append` clamps them.
   */
  adoptColumns(source: Omit<RangeColumns, 'count'>, count: number): void {
    if (this.n !== 0) {
      throw new Error('adoptColumns fills an empty range table only');
    }
    for (const column of Object.values(source) as ArrayLike<number>[]) {
      if (column.length < count) {
        throw new RangeError(`a column holds ${column.length} values, fewer than ${count} ranges`);
      }
    }
    this.startNsCol.adopt(source.startNs);
    this.endNsCol.adopt(source.endNs);
    this.trackCol.adopt(source.track);
    this.nameIdCol.adopt(source.nameId);
    this.domainIdCol.adopt(source.domainId);
    this.depthCol.adopt(source.depth);
    this.kindCol.adopt(source.kind);
    this.n = count;
  }

  append(range: RangeInput): number {
    const i = this.n;
    const need = i + 1;
    this.startNsCol.ensure(need)[i] = range.startNs;
    this.endNsCol.ensure(need)[i] = range.endNs;
    this.trackCol.ensure(need)[i] = range.track;
    this.nameIdCol.ensure(need)[i] = range.nameId;
    this.domainIdCol.ensure(need)[i] = range.domainId;
    this.depthCol.ensure(need)[i] = Math.min(255, range.depth);
    this.kindCol.ensure(need)[i] = range.kind;
    this.n = need;
    return i;
  }

  columns(): RangeColumns {
    const n = this.n;
    return {
      count: n,
      startNs: this.startNsCol.view(n),
      endNs: this.endNsCol.view(n),
      track: this.trackCol.view(n),
      nameId: this.nameIdCol.view(n),
      domainId: this.domainIdCol.view(n),
      depth: this.depthCol.view(n),
      kind: this.kindCol.view(n),
    };
  }
}

/** A kernel's launch configuration. Interned: kernels launched alike share one entry. */
export interface LaunchConfig {
  readonly gridX: number;
  readonly gridY: number;
  readonly gridZ: number;
  readonly blockX: number;
  readonly blockY: number;
  readonly blockZ: number;
  readonly sharedMemBytes: number;
  readonly registersPerThread: number;
}

export const launchConfigFields = [
  'gridX',
  'gridY',
  'gridZ',
  'blockX',
  'blockY',
  'blockZ',
  'sharedMemBytes',
  'registersPerThread',
] as const satisfies readonly (keyof LaunchConfig)[];

/** FNV-1a step over a number's low and high 32 bits. */
function mixHash(hash: number, x: number): number {
  const low = Math.imul(hash ^ (x | 0), 0x01000193);
  return Math.imul(low ^ ((x / 4294967296) | 0), 0x01000193);
}

export class LaunchTable {
  private readonly configs: LaunchConfig[] = [];
  /** Exact: a key string of the fields, for a configuration the hash below cannot settle. */
  private readonly ids = new Map<string, number>();
  /**
   * Fast: a hash of the eight numbers to the first configuration with that hash, so the millions
   * of kernels of a big import find their configuration without building a key string each.
   */
  private readonly idByHash = new Map<number, number>();

  get count(): number {
    return this.configs.length;
  }

  intern(config: LaunchConfig): number {
    return this.internFields(
      config.gridX,
      config.gridY,
      config.gridZ,
      config.blockX,
      config.blockY,
      config.blockZ,
      config.sharedMemBytes,
      config.registersPerThread,
    );
  }

  /** `intern` without a config object: the same ids. */
  internFields(
    gridX: number,
    gridY: number,
    gridZ: number,
    blockX: number,
    blockY: number,
    blockZ: number,
    sharedMemBytes: number,
    registersPerThread: number,
  ): number {
    // Unrolled: no array per call (millions of kernels go through here).
    let hash = mixHash(0x811c9dc5, gridX);
    hash = mixHash(hash, gridY);
    hash = mixHash(hash, gridZ);
    hash = mixHash(hash, blockX);
    hash = mixHash(hash, blockY);
    hash = mixHash(hash, blockZ);
    hash = mixHash(hash, sharedMemBytes);
    hash = mixHash(hash, registersPerThread);
    const known = this.idByHash.get(hash);
    if (known !== undefined) {
      const c = this.configs[known]!;
      // === as the key string compares (-0 is "0"); NaN never matches and takes the exact path.
      if (
        c.gridX === gridX &&
        c.gridY === gridY &&
        c.gridZ === gridZ &&
        c.blockX === blockX &&
        c.blockY === blockY &&
        c.blockZ === blockZ &&
        c.sharedMemBytes === sharedMemBytes &&
        c.registersPerThread === registersPerThread
      ) {
        return known;
      }
    }
    const key = `${gridX},${gridY},${gridZ},${blockX},${blockY},${blockZ},${sharedMemBytes},${registersPerThread}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.configs.length;
      this.configs.push({
        gridX,
        gridY,
        gridZ,
        blockX,
        blockY,
        blockZ,
        sharedMemBytes,
        registersPerThread,
      });
      this.ids.set(key, id);
    }
    if (known === undefined) {
      this.idByHash.set(hash, id);
    }
    return id;
  }

  get(id: number): LaunchConfig | undefined {
    return this.configs[id];
  }

  slice(from: number, to: number = this.configs.length): readonly LaunchConfig[] {
    return this.configs.slice(from, to);
  }
}
