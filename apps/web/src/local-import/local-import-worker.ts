/// <reference types="vite/client" />
import sqlWasmUrl from 'sql.js/dist/sql-wasm-browser.wasm?url';
import { importLocalFile } from './local-import-job.ts';
import type { LocalImportRequest, LocalImportResponse } from './local-import-protocol.ts';

// The local import worker's entry: one import per worker; `cancel` aborts it between chunks.
let current: AbortController | undefined;

function post(message: LocalImportResponse, transfer: Transferable[] = []): void {
  self.postMessage(message, { transfer });
}

self.addEventListener('message', (event: MessageEvent<LocalImportRequest>) => {
  const request = event.data;
  if (request.type === 'cancel') {
    current?.abort();
    return;
  }
  const controller = new AbortController();
  current = controller;
  void importLocalFile(request.file, request.fileName, {
    signal: controller.signal,
    onProgress: (readBytes, totalBytes, table) =>
      post({ type: 'progress', readBytes, totalBytes, ...(table === undefined ? {} : { table }) }),
    // sql.js (SQLite compiled to WebAssembly) for .sqlite exports, from the app's own assets.
    sqlWasm: { locateFile: () => sqlWasmUrl },
  }).then((result) =>
    post(result, result.type === 'done' ? [result.traceBytes.buffer as ArrayBuffer] : []),
  );
});
