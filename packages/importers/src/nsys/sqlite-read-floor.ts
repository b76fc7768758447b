import { FileSqliteSource } from '../sqlite-reader/file-source.ts';
import type { RandomAccessFile } from '../sqlite-reader/random-access.ts';
import { TraceBuilder } from '../trace-builder.ts';
import { NsysSqliteReader } from './nsys-sqlite.ts';
import type { SqliteSource } from './sqlite-source.ts';

/**
 * For benchmarks: the reading part of an nsys SQLite import alone. The importer makes every scan
 * it makes on `file` (the same tables and columns, each row decoded into its typed slots by our
 * reader), but no row reaches it: what an import costs before it does anything with a row.
 * Returns the rows decoded.
 */
export async function sqliteReadFloor(file: RandomAccessFile): Promise<number> {
  const inner = new FileSqliteSource(file);
  let rows = 0;
  const source: SqliteSource = {
    tableNames: () => inner.tableNames(),
    columns: (table) => inner.columns(table),
    rowCountHint: (table) => inner.rowCountHint(table),
    scan: (table, columns) => {
      inner.scan(table, columns, () => {
        rows++;
      });
    },
  };
  const builder = new TraceBuilder({});
  await new NsysSqliteReader(source, 'floor', builder, builder.launchTable()).read(() =>
    Promise.resolve(),
  );
  return rows;
}
