import { ImportError } from './import-error.ts';

/** Formats the importers read. */
export type ImportFormat = 'nsys-json' | 'nsys-sqlite' | 'chrome-trace' | 'streamscope-trace';

export type SniffResult =
  | { readonly ok: true; readonly format: ImportFormat; readonly gzip: boolean }
  | { readonly ok: false; readonly error: string };

/** Bytes of the head that sniffing looks at: enough for the longest magic and a first JSON key. */
export const sniffHeadBytes = 4096;

const sqliteMagic = 'SQLite format 3\u0000';
const nsysRepMagic = 'NVIDIA Tegra Profiler Report';
// saveTrace's batches start with batchMagic 0x31425353 written little-endian: "SSB1".
const streamscopeMagic = 'SSB1';

/**
 * Tells the format from the first bytes, not from the file name. `head` may be the gunzipped
 * head when `gzip` was already seen; a gzip head says `gzip: true` and the format of the
 * compressed content is sniffed again after inflating (see `sniffFormat` in import-trace.ts).
 */
export function sniffFormat(head: Uint8Array, fileName = 'input'): SniffResult {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    // The format inside is decided after inflating; a placeholder here says "gzip".
    return { ok: true, format: guessFromName(fileName), gzip: true };
  }
  const ascii = asciiPrefix(head, 64);
  if (ascii.startsWith(sqliteMagic)) {
    return { ok: true, format: 'nsys-sqlite', gzip: false };
  }
  if (ascii.startsWith(streamscopeMagic)) {
    return { ok: true, format: 'streamscope-trace', gzip: false };
  }
  // Content decides, never the name: an export saved under a report's name still imports, and
  // only a real report (its magic) is told to go through `nsys export`.
  if (isNsysReport(head)) {
    return { ok: false, error: nsysRepMessage(fileName) };
  }
  const json = sniffJson(head);
  if (json !== undefined) {
    return { ok: true, format: json, gzip: false };
  }
  if (head.length === 0) {
    return { ok: false, error: 'the file is empty' };
  }
  return {
    ok: false,
    error:
      'not a format streamscope reads: expected nsys JSON or SQLite (nsys export), a Chrome/kineto trace JSON, a .sstrace, or any of them gzip-compressed',
  };
}

/** Whether the head is an Nsight Systems report's (.nsys-rep, .qdrep): its magic, not its name. */
export function isNsysReport(head: Uint8Array): boolean {
  return asciiPrefix(head, nsysRepMagic.length) === nsysRepMagic;
}

/**
 * The message for a report file read where nsys cannot run (a browser's "Open locally", or
 * `importTrace` itself): the server and the CLI export a report through nsys before it gets here.
 */
export function nsysRepMessage(fileName: string): string {
  return (
    // The error's place already names the file ("report.nsys-rep: …"): don't say it twice.
    `this is an Nsight Systems report (.nsys-rep/.qdrep), which only nsys can read. ` +
    `${nsysExportAdvice(fileName)}; or upload the report to a streamscope server that has nsys ` +
    `(not "Open locally"), or run streamscope import where nsys is installed: both export it themselves`
  );
}

/** "Export it first: nsys export --type sqlite -o report.sqlite report.nsys-rep (…), then import that file". */
export function nsysExportAdvice(fileName: string): string {
  const name = shellWord(baseName(fileName));
  const base = reportBaseName(fileName);
  return (
    `Export it first: nsys export --type sqlite -o ${shellWord(`${base}.sqlite`)} ${name} ` +
    `(or --type json -o ${shellWord(`${base}.json`)}), then import that file`
  );
}

/**
 * A file name as one word of a command to paste into a shell: quoted unless plain, and never
 * read as an option ("-x" → "./-x"). The name comes from the file (or an upload's query).
 */
function shellWord(name: string): string {
  const word = name.startsWith('-') ? `./${name}` : name;
  return /^[\w.,+@%=:/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** report.nsys-rep → report; a report saved under another name (run.bin) → run. */
export function reportBaseName(fileName: string): string {
  const name = baseName(fileName);
  return /\.(nsys-rep|qdrep)$/i.test(name)
    ? name.replace(/\.(nsys-rep|qdrep)$/i, '')
    : name.replace(/(.)\.[^.]*$/, '$1');
}

/** Throws the sniff error as an ImportError. */
export function sniffOrThrow(
  head: Uint8Array,
  fileName: string,
): { format: ImportFormat; gzip: boolean } {
  const result = sniffFormat(head, fileName);
  if (!result.ok) {
    throw new ImportError({ file: fileName }, result.error);
  }
  return result;
}

function sniffJson(head: Uint8Array): ImportFormat | undefined {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
    i = 3; // UTF-8 byte order mark
  }
  while (i < head.length && isSpace(head[i]!)) {
    i++;
  }
  const first = head[i];
  if (first === 0x5b /* [ */) {
    return 'chrome-trace';
  }
  if (first !== 0x7b /* { */) {
    return undefined;
  }
  const text = asciiPrefix(head.subarray(i), head.length - i);
  // nsys JSON: one protobuf message per line; its first line is an event ("Type"), the string
  // table ("data"), or a separate-strings record ("type":"String"/"ThreadName").
  if (/^\{\s*"(Type|data|type|table)"\s*:/.test(text) && !text.includes('"traceEvents"')) {
    return 'nsys-json';
  }
  if (/^\{\s*"/.test(text) || /^\{\s*\}/.test(text) || text.length < 3) {
    return 'chrome-trace';
  }
  return undefined;
}

function guessFromName(fileName: string): ImportFormat {
  if (/\.sqlite(\.gz)?$/i.test(fileName)) {
    return 'nsys-sqlite';
  }
  return 'chrome-trace';
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function asciiPrefix(bytes: Uint8Array, max: number): string {
  let text = '';
  const n = Math.min(bytes.length, max);
  for (let i = 0; i < n; i++) {
    text += String.fromCharCode(bytes[i]!);
  }
  return text;
}

function baseName(fileName: string): string {
  const slash = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  return fileName.slice(slash + 1);
}
