import type { LaunchTable } from '@streamscope/trace';
import { MemKind, OpFlag, OpKind, packMemKinds } from '@streamscope/trace';
import type { StagedOp } from '../op-staging.ts';
import { clearStagedOp, newStagedOp } from '../op-staging.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { copyKindLabel, copyOpKind, noId32, nsysMemKind } from './nsys-enums.ts';
import { SqliteRowReader, col, pidCol } from './sqlite-rows.ts';
import type { ScanColumn, ScanRow } from './sqlite-source.ts';
import { SlotType } from './sqlite-source.ts';
import type { SqliteTables } from './sqlite-tables.ts';
import {
  SyncType,
  syncNames,
  syncOpKind,
  syncTypeFromCupti,
  syncTypeFromName,
} from './sync-kinds.ts';

/** The tables besides kernels, copies and memsets whose rows become ops here. */
export const gpuActivityTables = [
  'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION',
  'CUPTI_ACTIVITY_KIND_CUDA_EVENT',
  'CUPTI_ACTIVITY_KIND_GRAPH_TRACE',
];

/**
 * The GPU activity tables of an nsys SQLite export, one scan each: kernels, copies, memsets,
 * synchronizations, CUDA event records and graph launches, each drawn on its stream's lane.
 */
export class SqliteGpuActivity extends SqliteRowReader {
  private readonly op: StagedOp = newStagedOp();
  // The last stream lane (proc, device, context, stream): consecutive rows mostly share it.
  private readonly lastKey = [-1, -1, -1, -1];
  private lastVouched = false;
  private lastGpuLane = -1;

  constructor(
    t: SqliteTables,
    file: string,
    builder: TraceBuilder,
    private readonly launches: LaunchTable,
  ) {
    super(t, file, builder);
  }

  /** Reads the GPU activity tables, calling `between` before each (a cancel point). */
  async read(between: (stage: string) => Promise<void>): Promise<void> {
    await between('kernels');
    this.kernels();
    await between('copies');
    this.copies();
    await between('memsets');
    this.memsets();
    await between('synchronization');
    this.syncs();
    await between('event records');
    this.eventRecords();
    await between('graphs');
    this.graphs();
  }

  private kernels(): void {
    const table = 'CUPTI_ACTIVITY_KIND_KERNEL';
    if (!this.gpuTable(table)) {
      return;
    }
    const c = (name: string): ScanColumn => col(name, 0);
    const nameCol = this.t.columns(table).has('demangledName') ? 'demangledName' : 'shortName';
    this.t.requireColumns(table, [nameCol]);
    const cols = [
      ...this.gpuCols(),
      nameCol,
      ...['gridX', 'gridY', 'gridZ', 'blockX', 'blockY', 'blockZ'].map(c),
      ...['staticSharedMemory', 'dynamicSharedMemory', 'registersPerThread', 'graphNodeId'].map(c),
    ];
    const launches = this.launches;
    this.scanRows(table, cols, (r) => {
      const op = this.gpuOp(r, true);
      op.kind = OpKind.Kernel;
      op.nameRef = this.builder.sourceName(this.intAt(r, 8, nameCol));
      op.refId = launches.internFields(
        this.intAt(r, 9, 'gridX'),
        this.intAt(r, 10, 'gridY'),
        this.intAt(r, 11, 'gridZ'),
        this.intAt(r, 12, 'blockX'),
        this.intAt(r, 13, 'blockY'),
        this.intAt(r, 14, 'blockZ'),
        this.intAt(r, 15, 'staticSharedMemory') + this.intAt(r, 16, 'dynamicSharedMemory'),
        this.intAt(r, 17, 'registersPerThread'),
      );
      const graphNode = r.value(18);
      if (graphNode !== null && graphNode !== 0) {
        op.flags = OpFlag.InGraph; // --cuda-graph-trace=node: a node of a graph launch
      }
      this.builder.addOp(op);
    });
  }

  private copies(): void {
    const table = 'CUPTI_ACTIVITY_KIND_MEMCPY';
    if (!this.gpuTable(table)) {
      return;
    }
    this.t.requireColumns(table, ['bytes', 'copyKind']);
    const cols = [...this.gpuCols(), 'bytes', 'copyKind', col('srcKind', 7), col('dstKind', 7)];
    this.scanRows(table, cols, (r) => {
      const op = this.gpuOp(r, true);
      const kind = copyOpKind(this.intAt(r, 9, 'copyKind'));
      if (kind < 0) {
        this.builder.warnings.add(
          'copies of unknown kind drawn as device-to-device',
          `table ${table}`,
        );
      }
      op.kind = kind < 0 ? OpKind.CopyDtoD : kind;
      op.bytes = this.intAt(r, 8, 'bytes');
      op.memKinds = packMemKinds(
        nsysMemKind(this.intAt(r, 10, 'srcKind')),
        nsysMemKind(this.intAt(r, 11, 'dstKind')),
      );
      op.nameRef = this.literal(copyKindLabel[op.kind] ?? 'Memcpy');
      this.builder.addOp(op);
    });
  }

  private memsets(): void {
    const table = 'CUPTI_ACTIVITY_KIND_MEMSET';
    if (!this.gpuTable(table)) {
      return;
    }
    this.t.requireColumns(table, ['bytes']);
    this.scanRows(table, [...this.gpuCols(), 'bytes', col('memKind', 7)], (r) => {
      const op = this.gpuOp(r, true);
      op.kind = OpKind.Memset;
      op.bytes = this.intAt(r, 8, 'bytes');
      op.memKinds = packMemKinds(MemKind.Unknown, nsysMemKind(this.intAt(r, 9, 'memKind')));
      op.nameRef = this.literal('Memset');
      this.builder.addOp(op);
    });
  }

  private syncs(): void {
    const table = 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION';
    if (!this.gpuTable(table)) {
      return;
    }
    this.t.requireColumns(table, ['syncType']);
    const syncTypeOf = this.syncTypes();
    const cols = [...this.gpuCols(), 'syncType', col('eventId', noId32), col('eventSyncId')];
    this.scanRows(table, cols, (r) => {
      const op = this.gpuOp(r);
      const streamId = this.intAt(r, 4, 'streamId');
      const eventId = this.intAt(r, 9, 'eventId');
      op.kind = syncOpKind(syncTypeOf(this.intAt(r, 8, 'syncType')), streamId, eventId);
      op.nameRef = this.literal(syncNames[op.kind] ?? 'Synchronize');
      if (eventId !== noId32) {
        op.eventId = eventId;
        op.eventSyncId =
          r.type[10] === SlotType.Null ? Number.NaN : this.intAt(r, 10, 'eventSyncId');
        op.refId = eventId;
      }
      if (streamId === noId32) {
        this.builder.lanes.nameLane(op.lane, `Context ${this.intAt(r, 3, 'contextId')} sync`);
      }
      this.builder.addOp(op);
    });
  }

  /**
   * syncType → SyncType for this export: by name through ENUM_CUPTI_SYNC_TYPE where the export has
   * it (2022.4 on), else (and for ids that table leaves out) by CUPTI's documented numbering
   * (sync-kinds.ts). A name or number CUPTI does not define is Unknown: the row's ids decide.
   */
  private syncTypes(): (value: number) => number {
    const enumTable = 'ENUM_CUPTI_SYNC_TYPE';
    const byId = new Map<number, number>();
    if (this.t.has(enumTable)) {
      this.t.requireColumns(enumTable, ['id', 'name']);
      this.rows(enumTable, ['id', 'name'], (v) => {
        byId.set(this.int(v[0], 'id'), syncTypeFromName(String(v[1])) ?? -1);
      });
    }
    return (value) => {
      const named = byId.get(value);
      const type = named === undefined ? syncTypeFromCupti(value) : named;
      if (type === undefined || type < 0) {
        this.builder.warnings.add(
          'synchronizations of a type CUPTI does not define were classified by their stream and event ids',
          `table CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: syncType ${value}`,
        );
        return SyncType.Unknown;
      }
      return type;
    };
  }

  private eventRecords(): void {
    const table = 'CUPTI_ACTIVITY_KIND_CUDA_EVENT';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['deviceId', 'contextId', 'streamId', 'globalPid', 'eventId']);
    // Device-side record times exist only when nsys collected them; else time 0, placed later.
    const have = this.t.columns(table);
    const start = have.has('timestamp') ? col('timestamp') : col('start', 0);
    const cols = [
      start,
      start,
      'deviceId',
      'contextId',
      'streamId',
      col('correlationId', 0),
      pidCol('globalPid'),
      'eventId',
      col('eventSyncId'),
    ];
    this.scanRows(table, cols, (r) => {
      const op = this.gpuOp(r);
      op.kind = OpKind.EventRecord;
      op.eventId = this.intAt(r, 8, 'eventId');
      op.eventSyncId = r.type[9] === SlotType.Null ? Number.NaN : this.intAt(r, 9, 'eventSyncId');
      op.refId = op.eventId;
      op.nameRef = this.literal('Event record');
      this.builder.addOp(op);
    });
  }

  private graphs(): void {
    const table = 'CUPTI_ACTIVITY_KIND_GRAPH_TRACE';
    if (!this.gpuTable(table)) {
      return;
    }
    this.t.requireColumns(table, ['graphId']);
    this.scanRows(table, [...this.gpuCols(), 'graphId'], (r) => {
      const op = this.gpuOp(r);
      const graphId = this.intAt(r, 8, 'graphId');
      op.kind = OpKind.GraphLaunch;
      op.refId = graphId;
      op.nameRef = this.literal(`CUDA graph ${graphId}`);
      this.builder.addOp(op);
    });
  }

  /** Common GPU activity columns: start, end, deviceId, contextId, streamId, correlationId, vm, pid. */
  private gpuCols(): ScanColumn[] {
    return [
      col('start'),
      col('end'),
      col('deviceId'),
      col('contextId'),
      col('streamId'),
      col('correlationId', 0),
      pidCol('globalPid'),
    ];
  }

  private gpuTable(table: string): boolean {
    if (!this.t.has(table)) {
      return false;
    }
    this.t.requireColumns(table, [
      'start',
      'end',
      'deviceId',
      'contextId',
      'streamId',
      'globalPid',
    ]);
    return true;
  }

  /**
   * A staged op on its stream's lane. `deviceVouched`: the row's deviceId is its context's device
   * (kernel, copy and memset rows); sync rows carry 0 whatever the context (CUPTI's sync record
   * has no device), so lanes without it take the device of their context when the trace is built.
   */
  private gpuOp(r: ScanRow, deviceVouched = false): StagedOp {
    const op = clearStagedOp(this.op);
    op.startNs = this.timeAt(r, 0, 'start');
    op.endNs = this.timeAt(r, 1, 'end');
    op.proc = this.procAt(r, 6);
    const deviceId = this.intAt(r, 2, 'deviceId');
    const contextId = this.intAt(r, 3, 'contextId');
    const streamId = this.intAt(r, 4, 'streamId');
    const key = this.lastKey;
    if (
      op.proc !== key[0] ||
      deviceId !== key[1] ||
      contextId !== key[2] ||
      streamId !== key[3] ||
      deviceVouched !== this.lastVouched
    ) {
      this.lastGpuLane = this.builder.lanes.gpuLane(op.proc, deviceId, contextId, streamId);
      if (deviceVouched) {
        this.builder.lanes.vouchDevice(this.lastGpuLane);
      }
      key[0] = op.proc;
      key[1] = deviceId;
      key[2] = contextId;
      key[3] = streamId;
      this.lastVouched = deviceVouched;
    }
    op.lane = this.lastGpuLane;
    op.correlationId = this.intAt(r, 5, 'correlationId');
    return op;
  }
}
