import { ImportError } from '../import-error.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import type { ScanColumn, ScanRow, SqlValue } from './sqlite-source.ts';
import { SlotType } from './sqlite-source.ts';
import type { SqliteTables } from './sqlite-tables.ts';

export type { SqlValue } from './sqlite-source.ts';

const maxSafe = 2 ** 53;
/** Process key parts split exactly, so ids above 2^53 stay exact: VM id, pid. */
export const pidCol = (name: string): ScanColumn => ({ name, as: 'proc' });
/** VM id, pid and tid of a global thread id. */
export const tidCol = (name: string): ScanColumn => ({ name, as: 'thread' });
/** A column, or `ifMissing` where this schema lacks it. */
export const col = (name: string, ifMissing: number | null = null): ScanColumn => ({
  name,
  ifMissing,
});

/** Row reading shared by the nsys SQLite readers: checked integers and times, named by table, column and row. */
export class SqliteRowReader {
  protected table = '';
  protected rowIndex = 0;
  private readonly literals = new Map<string, number>();

  constructor(
    protected readonly t: SqliteTables,
    protected readonly file: string,
    protected readonly builder: TraceBuilder,
  ) {}

  // The last process and host lane looked up: rows mostly repeat them (no key string per row).
  private lastVm: SqlValue | undefined = null;
  private lastPid: SqlValue | undefined = null;
  private lastProc = -1;
  private lastLaneProc = -1;
  private lastTid = -1;
  private lastLane = -1;

  protected proc(vm: SqlValue | undefined, pid: SqlValue | undefined): number {
    if (this.lastProc >= 0 && vm === this.lastVm && pid === this.lastPid) {
      return this.lastProc;
    }
    const proc = this.builder.lanes.processFor(
      `${String(vm ?? 0)}:${String(pid ?? 0)}`,
      this.int(pid, 'globalPid'),
    );
    this.lastVm = vm;
    this.lastPid = pid;
    this.lastProc = proc;
    return proc;
  }

  /** proc() of the (vm, pid) pair in slots `i`, `i + 1` of a scanned row. */
  protected procAt(r: ScanRow, i: number): number {
    const type = r.type;
    if (type[i] === SlotType.Number && type[i + 1] === SlotType.Number) {
      const vm = r.num[i]!;
      const pid = r.num[i + 1]!;
      if (this.lastProc >= 0 && vm === this.lastVm && pid === this.lastPid) {
        return this.lastProc;
      }
    }
    return this.proc(r.value(i), r.value(i + 1));
  }

  protected hostLane(proc: number, tid: number): number {
    if (proc !== this.lastLaneProc || tid !== this.lastTid) {
      this.lastLane = this.builder.lanes.hostLane(proc, tid);
      this.lastLaneProc = proc;
      this.lastTid = tid;
    }
    return this.lastLane;
  }

  protected literal(name: string): number {
    let id = this.literals.get(name);
    if (id === undefined) {
      id = this.builder.name(name);
      this.literals.set(name, id);
    }
    return id;
  }

  /** Reads every row of `table` in rowid order as values (small tables); `row` returns false to stop. */
  protected rows(
    table: string,
    columns: readonly (ScanColumn | string)[],
    row: (values: SqlValue[]) => boolean | void,
  ): void {
    const values: SqlValue[] = [];
    this.scanRows(table, columns, (r) => {
      for (let i = 0; i < r.width; i++) {
        values[i] = r.value(i);
      }
      return row(values);
    });
  }

  /** Reads every row of `table` in rowid order in typed slots (big tables); `row` returns false to stop. */
  protected scanRows(
    table: string,
    columns: readonly (ScanColumn | string)[],
    row: (r: ScanRow) => boolean | void,
  ): void {
    this.table = table;
    this.rowIndex = 0;
    const scan = columns.map((c) => (typeof c === 'string' ? { name: c } : c));
    this.t.each(table, scan, (r) => {
      this.rowIndex++;
      return row(r);
    });
  }

  /** int() of slot `i` of a scanned row. */
  protected intAt(r: ScanRow, i: number, column: string): number {
    const type = r.type[i];
    if (type === SlotType.Number) {
      const value = r.num[i]!;
      if (Number.isInteger(value) && Math.abs(value) < maxSafe) {
        return value;
      }
    } else if (type === SlotType.Null) {
      return 0;
    }
    return this.int(r.value(i), column);
  }

  /** time() of slot `i` of a scanned row. */
  protected timeAt(r: ScanRow, i: number, column: string): number {
    if (r.type[i] === SlotType.Number) {
      const ns = r.num[i]!;
      if (Number.isInteger(ns) && ns >= 0 && ns < maxSafe) {
        return ns;
      }
    }
    return this.time(r.value(i), column);
  }

  protected int(value: SqlValue | undefined, column: string): number {
    if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < maxSafe) {
      return value;
    }
    if (value === null || value === undefined) {
      return 0; // old schemas keep NOT NULL defaults; NULL means "not recorded"
    }
    throw new ImportError(
      { file: this.file, table: this.table, field: column },
      `row ${this.rowIndex}: expected an integer, got ${describeValue(value)}`,
    );
  }

  protected time(value: SqlValue | undefined, column: string): number {
    const ns = typeof value === 'number' ? value : Number.NaN;
    if (!Number.isInteger(ns) || ns < 0 || ns >= maxSafe) {
      throw new ImportError(
        { file: this.file, table: this.table, field: column },
        `row ${this.rowIndex}: expected a time in ns in [0, 2^53), got ${describeValue(value ?? null)}`,
      );
    }
    return ns;
  }
}

function describeValue(value: SqlValue): string {
  if (value instanceof Uint8Array) {
    return `a ${value.length}-byte blob`;
  }
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value);
}
