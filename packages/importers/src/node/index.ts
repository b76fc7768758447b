// The importers' readers of files on disk, for Node (the server, the CLI, benchmarks): apart
// from the package's main entry, which the browser bundles too.
export type { OpenRandomAccessFile } from './file-random-access.ts';
export { openRandomAccess } from './file-random-access.ts';
export { fileChunkBytes, streamOf } from './file-stream.ts';
export type { NsysExportOptions } from './nsys-export.ts';
export { defaultNsysTimeoutMs, isNsysReportFile, withNsysExport } from './nsys-export.ts';
export type { NsysLookup } from './nsys-locate.ts';
export { locateNsys, nsysPathProblem } from './nsys-locate.ts';
export { isRunning } from './process-alive.ts';
