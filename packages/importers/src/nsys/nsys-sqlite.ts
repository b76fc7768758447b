import type { LaunchTable } from '@streamscope/trace';
import { OpKind, RangeKind } from '@streamscope/trace';
import { ImportError } from '../import-error.ts';
import { ImportLimitError } from '../io/limit-error.ts';
import type { StagedOp } from '../op-staging.ts';
import { clearStagedOp, newStagedOp } from '../op-staging.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { SqliteGpuActivity, gpuActivityTables } from './sqlite-gpu-activity.ts';
import { SqliteRowReader, col, tidCol } from './sqlite-rows.ts';
import type { ScanRow, SqliteSource } from './sqlite-source.ts';
import { SlotType } from './sqlite-source.ts';
import { SqliteTables } from './sqlite-tables.ts';
import { SqliteTargetInfo } from './sqlite-target-info.ts';

/** A bound on the reservation from row hints (rowids far apart would overstate the rows). */
const maxReservedOps = 1 << 28;

/**
 * Reads `nsys export --type sqlite` through a SqliteSource (sql.js in the browser, our file reader
 * in Node): one scan per table, joins by index in our code, schemas from before
 * 2021 to 2026 (tables and columns are looked up, never assumed; enums are hard-coded because
 * the ENUM_* tables are missing before 2022). Tables holding environments, command lines and
 * other machine facts are never read. Here: the string table, CUDA API calls and NVTX ranges;
 * GPU activity in `sqlite-gpu-activity.ts`, names and devices in `sqlite-target-info.ts`.
 */
export class NsysSqliteReader extends SqliteRowReader {
  private readonly op: StagedOp = newStagedOp();
  private lastText: string | undefined;
  private lastTextRef = 0;

  constructor(
    source: SqliteSource,
    file: string,
    builder: TraceBuilder,
    private readonly launches: LaunchTable,
  ) {
    super(new SqliteTables(source, file), file, builder);
  }

  /**
   * Reads the export table by table, awaiting `between` before each: the caller's cancel point
   * (both engines read synchronously, so a cancel can only land between tables).
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
    // Every row of these tables may become an op: the staging is sized once, not grown (growth
    // holds the old and the new columns at once, the peak of a big import).
    const opTables = [...activity.slice(0, 4), ...gpuActivityTables];
    const opRows = opTables.reduce((sum, name) => sum + t.rowCountHint(name), 0);
    if (opRows > this.builder.maxOps) {
      // Said before a row is read: the tables' sizes are known from their b-trees.
      throw new ImportLimitError(
        { file: this.file },
        `the export's GPU activity and API call tables hold up to ${opRows} rows (by their b-trees), each an op, over the limit of ${this.builder.maxOps} ops an import keeps`,
        this.builder.maxOps,
        'ops',
        // Its NVTX ranges count too: what --max-ops must be to keep it all.
        opRows + t.rowCountHint('NVTX_EVENTS'),
      );
    }
    this.builder.reserve(Math.min(opRows, maxReservedOps));
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
    this.scanRows('StringIds', ['id', 'value'], (r) => {
      const id = this.intAt(r, 0, 'id');
      const value = r.value(1);
      this.builder.setSourceString(id, typeof value === 'string' ? value : String(value ?? ''));
    });
  }

  private runtime(): void {
    const table = 'CUPTI_ACTIVITY_KIND_RUNTIME';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['start', 'end', 'globalTid', 'correlationId', 'nameId']);
    // eventClass: 0 runtime, 1 driver; schemas without the column hold runtime calls only.
    const cols = [
      'start',
      'end',
      tidCol('globalTid'),
      'correlationId',
      'nameId',
      col('eventClass', 0),
    ];
    const op = this.op;
    this.scanRows(table, cols, (r) => {
      const eventClass = r.num[7];
      if (r.type[7] !== SlotType.Number || (eventClass !== 0 && eventClass !== 1)) {
        return;
      }
      clearStagedOp(op);
      op.kind = OpKind.ApiCall;
      op.startNs = this.timeAt(r, 0, 'start');
      op.endNs = this.timeAt(r, 1, 'end');
      op.proc = this.procAt(r, 2);
      op.lane = this.hostLane(op.proc, this.intAt(r, 4, 'globalTid'));
      op.correlationId = this.intAt(r, 5, 'correlationId');
      op.nameRef = this.builder.sourceName(this.intAt(r, 6, 'nameId'));
      this.builder.addOp(op);
    });
  }

  private nvtx(): void {
    const table = 'NVTX_EVENTS';
    if (!this.t.has(table)) {
      return;
    }
    this.t.requireColumns(table, ['start', 'eventType', 'globalTid']);
    const domainId = col('domainId', 0);
    const domains = new Map<number, number>();
    this.scanRows(table, [domainId, col('text'), col('textId'), 'eventType'], (r) => {
      if (r.type[3] === SlotType.Number && r.num[3] === 75) {
        domains.set(this.intAt(r, 0, 'domainId'), this.textRef(r, 1, 2));
      }
    });
    const cols = [
      'start',
      col('end'),
      'eventType',
      col('text'),
      col('textId'),
      tidCol('globalTid'),
      domainId,
    ];
    this.scanRows(table, cols, (r) => {
      const type = r.num[2];
      if (r.type[2] !== SlotType.Number || (type !== 34 && type !== 59 && type !== 60)) {
        return;
      }
      const kind =
        type === 59 ? RangeKind.PushPop : type === 60 ? RangeKind.StartEnd : RangeKind.Mark;
      const startNs = this.timeAt(r, 0, 'start');
      const endNs = r.type[1] === SlotType.Null ? -1 : this.timeAt(r, 1, 'end');
      const lane = this.hostLane(this.procAt(r, 5), this.intAt(r, 7, 'globalTid'));
      const domain = this.intAt(r, 8, 'domainId');
      const domainRef =
        domain === 0 ? 0 : (domains.get(domain) ?? this.literal(`domain ${domain}`));
      this.builder.addRange(
        lane,
        startNs,
        kind === RangeKind.Mark ? startNs : endNs,
        this.textRef(r, 3, 4),
        domainRef,
        kind,
      );
    });
  }

  /** The name of a row's text (slot `text`, interned; the same text as the last row's is not looked up again) or its textId. */
  private textRef(r: ScanRow, text: number, textId: number): number {
    if (r.type[text] === SlotType.Text) {
      const value = r.ref[text] as string;
      if (value !== this.lastText) {
        this.lastText = value;
        this.lastTextRef = this.builder.name(value);
      }
      return this.lastTextRef;
    }
    return r.type[textId] === SlotType.Null
      ? 0
      : this.builder.sourceName(this.intAt(r, textId, 'textId'));
  }
}
