import type initSqlJs from 'sql.js';
import type { LaunchTable } from '@streamscope/trace';
import { MemKind, OpFlag, OpKind, RangeKind, noRef, packMemKinds } from '@streamscope/trace';
import { ImportError } from '../import-error.ts';
import type { StagedOp } from '../op-staging.ts';
import { newStagedOp } from '../op-staging.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { copyKindLabel, copyOpKind, noId32, nsysMemKind, syncOpKind } from './nsys-enums.ts';
import type { SqlValue } from './sqlite-rows.ts';
import { SqliteRowReader, pidExpr, tidExpr } from './sqlite-rows.ts';
import { SqliteTables } from './sqlite-tables.ts';
import { SqliteTargetInfo } from './sqlite-target-info.ts';

const syncNames: Record<number, string> = {
  [OpKind.StreamWait]: 'Stream wait event',
  [OpKind.StreamSync]: 'Stream synchronize',
  [OpKind.EventSync]: 'Event synchronize',
  [OpKind.DeviceSync]: 'Context synchronize',
};

/**
 * Reads `nsys export --type sqlite` through sql.js: one SELECT per table, schemas from before
 * 2021 to 2026 (tables and columns are looked up, never assumed; enums are hard-coded because
 * the ENUM_* tables are missing before 2022). Tables holding environments, command lines and
 * other machine facts are never read.
 */
export class NsysSqliteReader extends SqliteRowReader {
  private readonly op: StagedOp = newStagedOp();

  constructor(
    db: initSqlJs.Database,
    file: string,
    builder: TraceBuilder,
    private readonly launches: LaunchTable,
  ) {
    super(new SqliteTables(db, file), file, builder);
  }

  read(): { producer: string; createdAt?: string } {
    const t = this.t;
    const activity = [
      'CUPTI_ACTIVITY_KIND_KERNEL',
      'CUPTI_ACTIVITY_KIND_MEMCPY',
      'CUPTI_ACTIVITY_KIND_MEMSET',
      'CUPTI_ACTIVITY_KIND_RUNTIME',
      'NVTX_EVENTS',
    ];
    if (!t.has('StringIds')) {
      throw new ImportError(
        { file: this.file, table: 'StringIds' },
        'no StringIds table: this SQLite file is not an nsys export',
      );
    }
    if (!activity.some((name) => t.has(name)) && !t.has('CUPTI_ACTIVITY_KIND_SYNCHRONIZATION')) {
      this.builder.warnings.add('the export has no CUDA or NVTX tables (was CUDA tracing on?)');
    }
    this.strings();
    this.kernels();
    this.copies();
    this.memsets();
    this.syncs();
    this.eventRecords();
    this.graphs();
    this.runtime();
    this.nvtx();
    return new SqliteTargetInfo(this.t, this.file, this.builder).read();
  }

  private strings(): void {
    this.t.requireColumns('StringIds', ['id', 'value']);
    this.rows('StringIds', 'SELECT id, value FROM StringIds', (v) => {
      const id = this.int(v[0], 'id');
      this.builder.setSourceString(id, typeof v[1] === 'string' ? v[1] : String(v[1] ?? ''));
    });
  }

  private kernels(): void {
    const table = 'CUPTI_ACTIVITY_KIND_KERNEL';
    if (!this.gpuTable(table)) {
      return;
    }
    const c = (name: string, fallback = '0'): string => this.t.col(table, name, fallback);
    const nameCol = this.t.columns(table).has('demangledName') ? 'demangledName' : 'shortName';
    this.t.requireColumns(table, [nameCol]);
    const sql =
      `SELECT ${this.gpuCols(table)}, "${nameCol}", ${c('gridX')}, ${c('gridY')}, ${c('gridZ')}, ` +
      `${c('blockX')}, ${c('blockY')}, ${c('blockZ')}, ${c('staticSharedMemory')}, ` +
      `${c('dynamicSharedMemory')}, ${c('registersPerThread')}, ${c('graphNodeId')} FROM ${table}`;
    this.rows(table, sql, (v) => {
      const op = this.gpuOp(v);
      op.kind = OpKind.Kernel;
      op.nameRef = this.builder.sourceName(this.int(v[8], nameCol));
      op.refId = this.launches.intern({
        gridX: this.int(v[9], 'gridX'),
        gridY: this.int(v[10], 'gridY'),
        gridZ: this.int(v[11], 'gridZ'),
        blockX: this.int(v[12], 'blockX'),
        blockY: this.int(v[13], 'blockY'),
        blockZ: this.int(v[14], 'blockZ'),
        sharedMemBytes:
          this.int(v[15], 'staticSharedMemory') + this.int(v[16], 'dynamicSharedMemory'),
        registersPerThread: this.int(v[17], 'registersPerThread'),
      });
      if (v[18] !== null && v[18] !== 0) {
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
    const c = (name: string): string => this.t.col(table, name, '7');
    const sql = `SELECT ${this.gpuCols(table)}, bytes, copyKind, ${c('srcKind')}, ${c('dstKind')} FROM ${table}`;
    this.rows(table, sql, (v) => {
      const op = this.gpuOp(v);
      const kind = copyOpKind(this.int(v[9], 'copyKind'));
      if (kind < 0) {
        this.builder.warnings.add(
          'copies of unknown kind drawn as device-to-device',
          `table ${table}`,
        );
      }
      op.kind = kind < 0 ? OpKind.CopyDtoD : kind;
      op.bytes = this.int(v[8], 'bytes');
      op.memKinds = packMemKinds(
        nsysMemKind(this.int(v[10], 'srcKind')),
        nsysMemKind(this.int(v[11], 'dstKind')),
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
    const sql = `SELECT ${this.gpuCols(table)}, bytes, ${this.t.col(table, 'memKind', '7')} FROM ${table}`;
    this.rows(table, sql, (v) => {
      const op = this.gpuOp(v);
      op.kind = OpKind.Memset;
      op.bytes = this.int(v[8], 'bytes');
      op.memKinds = packMemKinds(MemKind.Unknown, nsysMemKind(this.int(v[9], 'memKind')));
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
    const sql =
      `SELECT ${this.gpuCols(table)}, syncType, ${this.t.col(table, 'eventId', String(noId32))}, ` +
      `${this.t.col(table, 'eventSyncId')} FROM ${table}`;
    this.rows(table, sql, (v) => {
      const op = this.gpuOp(v);
      const eventId = this.int(v[9], 'eventId');
      op.kind = syncOpKind(this.int(v[8], 'syncType'), eventId);
      op.nameRef = this.literal(syncNames[op.kind] ?? 'Synchronize');
      if (eventId !== noId32) {
        op.eventId = eventId;
        op.eventSyncId = v[10] === null ? Number.NaN : this.int(v[10], 'eventSyncId');
        op.refId = eventId;
      }
      if (this.int(v[4], 'streamId') === noId32) {
        this.builder.lanes.nameLane(op.lane, `Context ${this.int(v[3], 'contextId')} sync`);
      }
      this.builder.addOp(op);
    });
  }

  private eventRecords(): void {
    const table = 'CUPTI_ACTIVITY_KIND_CUDA_EVENT';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['deviceId', 'contextId', 'streamId', 'globalPid', 'eventId']);
    // Device-side record times exist only when nsys collected them; else time 0, placed later.
    const start = this.t.col(table, 'timestamp', this.t.col(table, 'start', '0'));
    const sql =
      `SELECT ${start}, ${start}, deviceId, contextId, streamId, ${this.t.col(table, 'correlationId', '0')}, ` +
      `${pidExpr('globalPid')}, eventId, ${this.t.col(table, 'eventSyncId')} FROM ${table}`;
    this.rows(table, sql, (v) => {
      const op = this.gpuOp(v);
      op.kind = OpKind.EventRecord;
      op.eventId = this.int(v[8], 'eventId');
      op.eventSyncId = v[9] === null ? Number.NaN : this.int(v[9], 'eventSyncId');
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
    this.rows(table, `SELECT ${this.gpuCols(table)}, graphId FROM ${table}`, (v) => {
      const op = this.gpuOp(v);
      const graphId = this.int(v[8], 'graphId');
      op.kind = OpKind.GraphLaunch;
      op.refId = graphId;
      op.nameRef = this.literal(`CUDA graph ${graphId}`);
      this.builder.addOp(op);
    });
  }

  private runtime(): void {
    const table = 'CUPTI_ACTIVITY_KIND_RUNTIME';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['start', 'end', 'globalTid', 'correlationId', 'nameId']);
    // eventClass: 0 runtime, 1 driver; schemas without the column hold runtime calls only.
    const where = this.t.columns(table).has('eventClass') ? ' WHERE eventClass IN (0, 1)' : '';
    const sql = `SELECT start, end, ${tidExpr('globalTid')}, correlationId, nameId FROM ${table}${where}`;
    const op = this.op;
    this.rows(table, sql, (v) => {
      this.clearOp();
      op.kind = OpKind.ApiCall;
      op.startNs = this.time(v[0], 'start');
      op.endNs = this.time(v[1], 'end');
      op.proc = this.proc(v[2], v[3]);
      op.lane = this.builder.lanes.hostLane(op.proc, this.int(v[4], 'globalTid'));
      op.correlationId = this.int(v[5], 'correlationId');
      op.nameRef = this.builder.sourceName(this.int(v[6], 'nameId'));
      this.builder.addOp(op);
    });
  }

  private nvtx(): void {
    const table = 'NVTX_EVENTS';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['start', 'eventType', 'globalTid']);
    const c = (name: string): string => this.t.col(table, name);
    const domainId = this.t.col(table, 'domainId', '0');
    const domains = new Map<number, number>();
    this.rows(
      table,
      `SELECT ${domainId}, ${c('text')}, ${c('textId')} FROM ${table} WHERE eventType = 75`,
      (v) => {
        domains.set(this.int(v[0], 'domainId'), this.textRef(v[1], v[2]));
      },
    );
    const sql =
      `SELECT start, ${c('end')}, eventType, ${c('text')}, ${c('textId')}, ${tidExpr('globalTid')}, ${domainId} ` +
      `FROM ${table} WHERE eventType IN (34, 59, 60)`;
    this.rows(table, sql, (v) => {
      const type = this.int(v[2], 'eventType');
      const kind =
        type === 59 ? RangeKind.PushPop : type === 60 ? RangeKind.StartEnd : RangeKind.Mark;
      const startNs = this.time(v[0], 'start');
      const endNs = v[1] === null ? -1 : this.time(v[1], 'end');
      const lane = this.builder.lanes.hostLane(this.proc(v[5], v[6]), this.int(v[7], 'globalTid'));
      const domain = this.int(v[8], 'domainId');
      const domainRef =
        domain === 0 ? 0 : (domains.get(domain) ?? this.literal(`domain ${domain}`));
      this.builder.addRange(
        lane,
        startNs,
        kind === RangeKind.Mark ? startNs : endNs,
        this.textRef(v[3], v[4]),
        domainRef,
        kind,
      );
    });
  }

  /** Common GPU activity columns: start, end, deviceId, contextId, streamId, correlationId, vm, pid. */
  private gpuCols(table: string): string {
    return `start, end, deviceId, contextId, streamId, ${this.t.col(table, 'correlationId', '0')}, ${pidExpr('globalPid')}`;
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

  private gpuOp(v: SqlValue[]): StagedOp {
    const op = this.clearOp();
    op.startNs = this.time(v[0], 'start');
    op.endNs = this.time(v[1], 'end');
    op.proc = this.proc(v[6], v[7]);
    op.lane = this.builder.lanes.gpuLane(
      op.proc,
      this.int(v[2], 'deviceId'),
      this.int(v[3], 'contextId'),
      this.int(v[4], 'streamId'),
    );
    op.correlationId = this.int(v[5], 'correlationId');
    return op;
  }

  private clearOp(): StagedOp {
    const op = this.op;
    op.bytes = 0;
    op.memKinds = 0;
    op.refId = noRef;
    op.flags = 0;
    op.eventId = Number.NaN;
    op.eventSyncId = Number.NaN;
    op.correlationId = 0;
    return op;
  }

  private textRef(text: SqlValue | undefined, textId: SqlValue | undefined): number {
    if (typeof text === 'string') {
      return this.builder.name(text);
    }
    return textId === null || textId === undefined
      ? 0
      : this.builder.sourceName(this.int(textId, 'textId'));
  }
}
