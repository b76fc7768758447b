// The metadata thread: the one owner of the sql.js database, started on this plain module (no
// TypeScript loader, so it starts in milliseconds and holds little). It runs the statements the
// event loop sends, one entry's worth each, and, when asked, exports the whole database for the
// event loop to write: the O(database) work of a change never runs on the event loop. The
// messages are typed in metadata-protocol.ts; the SQL comes from metadata-rows.ts.
import { parentPort } from 'node:worker_threads';
import initSqlJs from 'sql.js';

const port = parentPort;
if (port === null) {
  throw new Error('metadata-worker.mjs runs in a worker thread of the server');
}

/** @type {import('sql.js').Database | undefined} */
let db;
/** A statement SQLite refused since the last export (reported with the next one). */
let refused;

/** @param {import('./metadata-protocol.ts').FromMetadata} message */
function send(message, transfer = []) {
  port.postMessage(message, transfer);
}

/** @param {import('./metadata-protocol.ts').ToMetadata & { type: 'open' }} message */
async function open(message) {
  const SQL = await initSqlJs({ locateFile: () => message.sqlWasmPath });
  let opened;
  try {
    opened = message.bytes === undefined ? new SQL.Database() : new SQL.Database(message.bytes);
    opened.exec('SELECT count(*) FROM sqlite_master');
    for (const statement of message.setup) {
      opened.exec(statement);
    }
    for (const { table, column, type } of message.addedColumns) {
      const columns = opened.exec(`PRAGMA table_info(${table})`)[0]?.values.map((row) => row[1]);
      if (!(columns ?? []).includes(column)) {
        opened.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
      }
    }
  } catch (error) {
    send({ type: 'open-failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  db = opened;
  const rows = [];
  const statement = opened.prepare(message.select);
  try {
    while (statement.step()) {
      rows.push(statement.getAsObject());
    }
  } finally {
    statement.free();
  }
  send({ type: 'opened', rows });
}

port.on('message', (/** @type {import('./metadata-protocol.ts').ToMetadata} */ message) => {
  switch (message.type) {
    case 'open':
      void open(message);
      return;
    case 'run':
      try {
        db.run(message.sql, message.values);
      } catch (error) {
        refused ??= error instanceof Error ? error.message : String(error);
      }
      return;
    case 'export': {
      const { requestId } = message;
      if (refused !== undefined) {
        send({ type: 'exported', requestId, error: refused });
        refused = undefined;
        return;
      }
      const bytes = db.export();
      send({ type: 'exported', requestId, bytes }, [bytes.buffer]);
      return;
    }
  }
});
