import { rmSync } from 'node:fs';
import { chmod, mkdtemp, open, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { ImportError } from '../import-error.ts';
import { isNsysReport, nsysExportAdvice, reportBaseName } from '../sniff.ts';
import type { NsysLookup } from './nsys-locate.ts';
import { locateNsys } from './nsys-locate.ts';
import type { NsysExit, NsysRunResult } from './nsys-process.ts';
import { lastMeaningfulLines, nsysVersion, runNsys } from './nsys-process.ts';

/** How long one `nsys export` may run unless told otherwise: 30 minutes. */
export const defaultNsysTimeoutMs = 30 * 60_000;

export interface NsysExportOptions extends NsysLookup {
  /** The report's name in messages and the trace's title (the upload's name, or the file's). */
  readonly fileName: string;
  /** Folder in which the private folder of the export is made (mode 0700, always removed). */
  readonly tempRoot: string;
  /** Longest the export may run (default defaultNsysTimeoutMs). */
  readonly timeoutMs?: number;
  /** How a user points this command at nsys, for the not-found message: "import --nsys PATH". */
  readonly optionHint?: string;
  /** How a user raises the time limit, for the timed-out message: "--nsys-timeout-s N". */
  readonly timeoutHint?: string;
  readonly signal?: AbortSignal;
  /** Called as the export starts, with the nsys that runs it. */
  readonly onExporting?: (nsysPath: string) => void;
}

/**
 * Settles when the exports before the last one asked for have ended: nsys runs one export at a
 * time in this process (several uploads at once would each run an nsys, which may take
 * gigabytes of memory and disk for a large report).
 */
let exportTurn: Promise<void> = Promise.resolve();

/** Private export folders in use: removed if this process exits while they are. */
const liveFolders = new Set<string>();
let exitHookSet = false;

/** Whether the file on disk is an Nsight Systems report (by its magic). */
export async function isNsysReportFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = new Uint8Array(64);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return isNsysReport(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/**
 * Exports an Nsight Systems report to SQLite with nsys (`nsys export --type sqlite`, in a child
 * process), hands `use` the export's path and size, and removes the export whatever happens:
 * success, failure, a cancel, the time limit. The export lives in a folder of its own (mode
 * 0700) under `tempRoot`: an export carries the profiled processes' environments and command
 * lines, which the importers drop and nothing else may read. One nsys export runs at a time in
 * this process: another waits for its turn (onExporting is called as it starts waiting), and a
 * cancel ends its wait at once. Rejects with an ImportError naming the file when no nsys is
 * found or nsys fails (its path, version, exit status, stderr's end).
 */
export async function withNsysExport<T>(
  reportPath: string,
  options: NsysExportOptions,
  use: (sqlitePath: string, sqliteBytes: number) => Promise<T>,
): Promise<T> {
  const file = options.fileName;
  const located = await locateNsys(options);
  if (!located.found) {
    throw new ImportError({ file }, notFoundMessage(file, located, options.optionHint));
  }
  throwIfCancelled(options.signal, file);
  setExitHook();
  // Said while the export waits for its turn too: nsys is what it waits for.
  options.onExporting?.(located.path);
  const turn = await nextExportTurn(options.signal, file);
  let dir: string | undefined;
  try {
    dir = await mkdtemp(path.join(options.tempRoot, 'streamscope-nsys-'));
    liveFolders.add(dir);
    await chmod(dir, 0o700);
    // nsys reads a report by its extension: the file goes in under a name that has one.
    const base = safeName(reportBaseName(file));
    const input = path.join(dir, `${base}${/\.qdrep$/i.test(file) ? '.qdrep' : '.nsys-rep'}`);
    await symlink(path.resolve(reportPath), input);
    const output = path.join(dir, `${base}.sqlite`);
    const timeoutMs = options.timeoutMs ?? defaultNsysTimeoutMs;
    const run = await runNsys(
      located.path,
      ['export', '--type', 'sqlite', '--force-overwrite', 'true', '--output', output, input],
      { timeoutMs, ...(options.signal === undefined ? {} : { signal: options.signal }) },
    );
    // The next export may start while this one's is read.
    turn.release();
    if (run.exit.kind === 'cancelled') {
      throw new ImportError({ file }, 'import cancelled while nsys exported the report');
    }
    const sqliteBytes = await stat(output).then(
      (s) => (s.isFile() ? s.size : undefined),
      () => undefined,
    );
    if (run.exit.kind !== 'exited' || run.exit.code !== 0 || sqliteBytes === undefined) {
      const version = run.exit.kind === 'not-started' ? undefined : await nsysVersion(located.path);
      throw new ImportError(
        { file },
        failureMessage(located.path, version, run, timeoutMs, options.timeoutHint, dir),
      );
    }
    return await use(output, sqliteBytes);
  } finally {
    turn.release();
    if (dir !== undefined) {
      await rm(dir, { recursive: true, force: true });
      liveFolders.delete(dir);
    }
  }
}

/**
 * Waits for this export's turn to run nsys (see exportTurn); rejects at once on a cancel. The
 * turn passes on when released, and not before every export ahead of it has released its own.
 */
async function nextExportTurn(
  signal: AbortSignal | undefined,
  file: string,
): Promise<{ readonly release: () => void }> {
  const previous = exportTurn;
  let done = (): void => undefined;
  exportTurn = new Promise((resolve) => {
    done = resolve;
  });
  const release = (): void => void previous.then(done);
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(new ImportError({ file }, 'import cancelled'));
      if (signal?.aborted === true) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      void previous.then(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  } catch (error) {
    release();
    throw error;
  }
  return { release };
}

function notFoundMessage(
  file: string,
  located: { readonly looked: readonly string[]; readonly unusable?: string },
  optionHint = '--nsys PATH',
): string {
  const why =
    located.unusable !== undefined
      ? `the nsys named is not usable (${located.unusable})`
      : `no nsys was found (looked at ${located.looked.join(', ')}); install Nsight Systems, or point streamscope at nsys with ${optionHint} or NSYS=PATH`;
  return (
    `this is an Nsight Systems report (.nsys-rep/.qdrep), which only nsys can read, and ${why}. ` +
    `Or ${lowerFirst(nsysExportAdvice(file))}`
  );
}

function failureMessage(
  nsysPath: string,
  version: string | undefined,
  run: NsysRunResult,
  timeoutMs: number,
  timeoutHint: string | undefined,
  privateDir: string,
): string {
  const nsys = `${nsysPath}${version === undefined ? '' : ` (version ${version})`}`;
  const lines = lastMeaningfulLines(run.stderrTail);
  // nsys names its input and output by their paths: the private folder (under the server's data
  // folder) is nobody's business, the file's name is.
  const said = (lines.length > 0 ? lines : lastMeaningfulLines(run.stdoutTail)).map((line) =>
    line.replaceAll(`${privateDir}${path.sep}`, ''),
  );
  const output = said.length === 0 ? 'it printed nothing' : `it said: ${said.join(' | ')}`;
  return `nsys could not export the report: ${exitText(nsys, run.exit, timeoutMs, timeoutHint)}; ${output}`;
}

function exitText(
  nsys: string,
  exit: NsysExit,
  timeoutMs: number,
  timeoutHint: string | undefined,
): string {
  switch (exit.kind) {
    case 'not-started':
      return `${nsys} could not be started (${exit.reason})`;
    case 'timed-out':
      return `${nsys} did not finish within ${timeoutMs / 1000} s and was stopped${timeoutHint === undefined ? '' : ` (${timeoutHint} raises the limit)`}`;
    case 'cancelled':
      return `${nsys} was stopped`;
    case 'exited':
      if (exit.signal !== null) {
        return `${nsys} was ended by ${exit.signal}`;
      }
      return exit.code === 0
        ? `${nsys} exited with status 0 but wrote no SQLite export`
        : `${nsys} exited with status ${exit.code ?? 'unknown'}`;
  }
}

/** A name nsys and every file system take: the report's, or "report". */
function safeName(base: string): string {
  const safe = base
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 100);
  return safe === '' ? 'report' : safe;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function throwIfCancelled(signal: AbortSignal | undefined, file: string): void {
  if (signal?.aborted === true) {
    throw new ImportError({ file }, 'import cancelled');
  }
}

function setExitHook(): void {
  if (exitHookSet) {
    return;
  }
  exitHookSet = true;
  process.once('exit', () => {
    for (const dir of liveFolders) {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
