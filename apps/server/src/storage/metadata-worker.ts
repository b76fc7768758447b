import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type { Database, SqlJsStatic } from 'sql.js';
import initSqlJs from 'sql.js';
import { besideBundle } from '../workers/thread-script.ts';
import type { FromMetadata, ToMetadata } from './metadata-protocol.ts';
import { addMissingColumns, allEntries, schema, upsertOf } from './metadata-rows.ts';

// The metadata thread: the one owner of the sql.js database. It applies each change as it comes
// (an indexed insert, update or delete) and, when asked, exports the whole database for the event
// loop to write: the O(database) work of a change never runs on the event loop.

const port = parentPort;
if (port === null) {
  throw new Error('metadata-worker.ts runs in a worker thread of the server');
}

let db: Database | undefined;
/** A change SQLite refused since the last export (reported with the next one). */
let refused: string | undefined;

/**
 * sql.js with its WebAssembly file: the one given, the one shipped beside a bundle, or the one
 * inside the sql.js package (resolved, never a fixed path).
 */
function loadSql(wasmPath: string | undefined): Promise<SqlJsStatic> {
  const path =
    wasmPath ??
    besideBundle('sql-wasm.wasm') ??
    createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  return initSqlJs({ locateFile: () => path });
}

function send(message: FromMetadata, transfer: readonly ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

async function open(bytes: Uint8Array | undefined, sqlWasmPath: string | undefined): Promise<void> {
  const SQL = await loadSql(sqlWasmPath);
  let opened: Database;
  try {
    opened = bytes === undefined ? new SQL.Database() : new SQL.Database(bytes);
    opened.exec('SELECT count(*) FROM sqlite_master');
    opened.exec(schema);
    addMissingColumns(opened);
  } catch (error) {
    send({ type: 'open-failed', message: (error as Error).message });
    return;
  }
  db = opened;
  send({ type: 'opened', entries: allEntries(opened) });
}

function change(apply: (database: Database) => void): void {
  try {
    apply(db!);
  } catch (error) {
    refused ??= (error as Error).message;
  }
}

port.on('message', (message: ToMetadata) => {
  switch (message.type) {
    case 'open':
      void open(message.bytes, message.sqlWasmPath);
      return;
    case 'put':
      change((database) => {
        const { sql, values } = upsertOf(message.entry);
        database.run(sql, values);
      });
      return;
    case 'delete':
      change((database) => database.run('DELETE FROM traces WHERE id = ?', [message.id]));
      return;
    case 'export': {
      const { requestId } = message;
      if (refused !== undefined) {
        send({ type: 'exported', requestId, error: refused });
        refused = undefined;
        return;
      }
      const bytes = db!.export();
      send({ type: 'exported', requestId, bytes }, [bytes.buffer as ArrayBuffer]);
      return;
    }
    case 'close':
      db?.close();
      db = undefined;
      send({ type: 'closed' });
      return;
  }
});
