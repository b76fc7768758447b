import type initSqlJs from 'sql.js';
import type { LaunchTable } from '@streamscope/trace';
import { OpKind, RangeKind } from '@streamscope/trace';
import { ImportError } from '../import-error.ts';
import type { StagedOp } from '../op-staging.ts';
import { clearStagedOp, newStagedOp } from '../op-staging.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { SqliteGpuActivity } from './sqlite-gpu-activity.ts';
import type { SqlValue } from './sqlite-rows.ts';
import { SqliteRowReader, tidExpr } from './sqlite-rows.ts';
import { SqliteTables } from './sqlite-tables.ts';
import { SqliteTargetInfo } from './sqlite-target-info.ts';

/**
 * Reads `nsys export --type sqlite` through sql.js: one SELECT per table, schemas from before
 * 2021 to 2026 (tables and columns are looked up, never assumed; enums are hard-coded because
 * the ENUM_* tables are missing before 2022). Tables holding environments, command lines and
 * other machine facts are never read. Here: the string table, CUDA API calls and NVTX ranges;
 * GPU activity in `sqlite-gpu-activity.ts`, names and devices in `sqlite-target-info.ts`.
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

  /**
   * Reads the export table by table, awaiting `between` before each: the caller's cancel point
   * (sql.js reads synchronously, so a cancel can only land between tables).
   */
  async read(
    between: (stage: string) => Promise<void>,
  ): Promise<{ producer: string; createdAt?: string }> {
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
    await between('strings');
    this.strings();
    await new SqliteGpuActivity(this.t, this.file, this.builder, this.launches).read(between);
    await between('runtime API');
    this.runtime();
    await between('NVTX');
    this.nvtx();
    await between('devices');
    return new SqliteTargetInfo(this.t, this.file, this.builder).read();
  }

  private strings(): void {
    this.t.requireColumns('StringIds', ['id', 'value']);
    this.rows('StringIds', 'SELECT id, value FROM StringIds', (v) => {
      const id = this.int(v[0], 'id');
      this.builder.setSourceString(id, typeof v[1] === 'string' ? v[1] : String(v[1] ?? ''));
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
      clearStagedOp(op);
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

  private textRef(text: SqlValue | undefined, textId: SqlValue | undefined): number {
    if (typeof text === 'string') {
      return this.builder.name(text);
    }
    return textId === null || textId === undefined
      ? 0
      : this.builder.sourceName(this.int(textId, 'textId'));
  }
}
