import type { ForeignImporter } from '../imports/import-service.ts';
import { runImportInWorker } from '../workers/server-workers.ts';

/**
 * nsys JSON/SQLite exports and Chrome/kineto traces (gzip'd or not) through @streamscope/importers,
 * parsed in a worker thread from the received file (workers/tasks/import-task.ts). Importers drop
 * environments and command lines, and the server stores only the resulting trace, never the upload.
 */
export const importForeign: ForeignImporter = runImportInWorker;
