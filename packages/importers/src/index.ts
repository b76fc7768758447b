/** Importers: nsys JSON/SQLite exports and Chrome/kineto traces in, a streamscope Trace out. */
export type { ImportFormat, SniffResult } from './sniff.ts';
export { sniffFormat, sniffHeadBytes, nsysRepMessage } from './sniff.ts';
export type { ImportErrorPlace } from './import-error.ts';
export { ImportError } from './import-error.ts';
export type { ImportLimitUnit } from './io/limit-error.ts';
export { ImportLimitError } from './io/limit-error.ts';
export { gunzip, maxInflateRatio } from './io/gunzip.ts';
export type { ImportOptions, ImportResult } from './import-trace.ts';
export {
  importTrace,
  defaultMaxImportBytes,
  importPeakBytesPerOp,
  maxImportOpsFor,
} from './import-trace.ts';
export type { ImportSource } from './io/chunks.ts';
export type { RandomAccessFile } from './sqlite-reader/random-access.ts';
export { bytesAsRandomAccess } from './sqlite-reader/random-access.ts';
/** For tools and benchmarks: the page-by-page SQLite reader itself. */
export type { SqliteTable } from './sqlite-reader/sqlite-file.ts';
export { SqliteFile } from './sqlite-reader/sqlite-file.ts';
export { sqliteReadFloor } from './nsys/sqlite-read-floor.ts';
export { nsysJsonReadFloor } from './nsys/nsys-json-read-floor.ts';
export { chromeTraceReadFloor } from './chrome/chrome-read-floor.ts';
export type { SqlWasmOptions } from './nsys/load-sqljs.ts';
/** For benchmarks: sql.js, the browser's SQLite engine. */
export { loadSqlJs } from './nsys/load-sqljs.ts';
export type { NsysJsonReader } from './nsys/nsys-json.ts';
export type { ImportSummary } from './summary.ts';
export { importSummary } from './summary.ts';
export {
  chromeBatchChunks,
  chromeTraceChunks,
  chromeTraceHead,
  exportChromeTrace,
} from './chrome-export.ts';
/** For tests and benchmarks: a trace whose Chrome export is as large as asked. */
export { exportTestTrace } from './export-test-trace.ts';
export { dumpTrace } from './dump-trace.ts';
export type { RankInput, MergeRanksOptions, MergeRanksResult, MergedRank } from './merge-ranks.ts';
export { mergeRanks } from './merge-ranks.ts';
