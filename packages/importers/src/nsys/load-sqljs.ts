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
