import initSqlJs from 'sql.js';

/** Where sql.js finds its WebAssembly: a URL per file name, or the bytes themselves. */
export interface SqlWasmOptions {
  readonly locateFile?: (file: string) => string;
  readonly wasmBinary?: ArrayBuffer;
}

let defaultModule: Promise<initSqlJs.SqlJsStatic> | undefined;

/** The sql.js module: cached when no options are given (Node finds the .wasm beside the package). */
export function loadSqlJs(options?: SqlWasmOptions): Promise<initSqlJs.SqlJsStatic> {
  if (
    options === undefined ||
    (options.locateFile === undefined && options.wasmBinary === undefined)
  ) {
    defaultModule ??= initSqlJs();
    return defaultModule;
  }
  const config: initSqlJs.SqlJsConfig = {};
  if (options.locateFile !== undefined) {
    config.locateFile = options.locateFile;
  }
  if (options.wasmBinary !== undefined) {
    config.wasmBinary = options.wasmBinary;
  }
  return initSqlJs(config);
}

/**
 * A view whose whole-range `slice` is itself. sql.js keeps its files in JS memory and copies
 * the bytes it is given into a new file with `slice`; given this view, that copy is the same
 * memory, so an export is held once (a copy would double the peak for a big export).
 */
class OwnedBytes extends Uint8Array<ArrayBuffer> {
  override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
    if ((start ?? 0) === 0 && (end === undefined || end >= this.length)) {
      return this;
    }
    return super.slice(start, end);
  }
}

/**
 * Opens `bytes` as a database that takes them over instead of copying them: `bytes` belongs to
 * the database from then on (SQLite may write to it) and is let go when it is closed.
 */
export function openOwnedDatabase(
  SQL: initSqlJs.SqlJsStatic,
  bytes: Uint8Array,
): initSqlJs.Database {
  // A view of a shared buffer is copied as before (it cannot be handed over).
  return new SQL.Database(
    bytes.buffer instanceof ArrayBuffer
      ? new OwnedBytes(bytes.buffer, bytes.byteOffset, bytes.length)
      : bytes,
  );
}
