import type { LaunchTable } from '@streamscope/trace';
import { ImportError } from '../import-error.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { fastScan } from './fast-scan.ts';
import { KeyTemplate } from './key-template.ts';
import { NsysEventSink } from './nsys-events.ts';
import { NsysRecord } from './nsys-record.ts';
import { fillRecord, isObject } from './parsed-event.ts';

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface NsysJsonResult {
  readonly producer: string;
  readonly lines: number;
}

/**
 * One nsys JSON line at a time, whichever reader cut it: events go to the sink (fast scanner
 * first, JSON.parse for the rest), string tables, thread names and the other record shapes of
 * layouts A–C are recognised by their keys.
 */
export class NsysJsonLines {
  line = 0;
  private readonly rec = new NsysRecord();
  /** Per event type, the keys of its last line (see KeyTemplate); `learned` is the scratch one. */
  private readonly templates: (KeyTemplate | undefined)[] = [];
  private learned = new KeyTemplate();
  private readonly sink: NsysEventSink;
  private sawStrings = false;
  private events = 0;
  private producer = '';

  /** `sink` is for benchmarks (a sink that drops the events); an import leaves it out. */
  constructor(
    private readonly file: string,
    private readonly builder: TraceBuilder,
    launches: LaunchTable,
    sink?: NsysEventSink,
  ) {
    this.sink = sink ?? new NsysEventSink(builder, launches, file);
  }

  /**
   * Reads every whole line of `chunk` from `from` on and returns where the unfinished rest
   * starts. Most lines are read by the fast scanner, which also finds where they end; only the
   * others are searched for their newline. Lines run only up to the chunk's last newline, so the
   * scanner never reads past the end of the chunk (an out-of-bounds read would make V8
   * deoptimize it). A plain method rather than the async reader's loop: V8 optimizes it as a
   * whole on its own, instead of on-stack-replacing the loop of each async call again.
   */
  readLines(chunk: Uint8Array, from: number): number {
    // Once per chunk, not in the line loop: a switch of buffers first taken by optimized code
    // would deoptimize the loop with everything inlined in it.
    this.rec.readFrom(chunk);
    const lastNl = chunk.lastIndexOf(NEWLINE);
    while (from <= lastNl) {
      this.line++;
      const end = this.tryFast(chunk, from, lastNl + 1);
      if (end >= 0) {
        from = end + 1;
        continue;
      }
      const nl = chunk.indexOf(NEWLINE, from);
      this.readLine(chunk, from, nl);
      from = nl + 1;
    }
    return from;
  }

  /**
   * Reads the line starting at `start` with the fast scanner if it can: returns the index of
   * its newline, or -1 when the line needs the JSON.parse path (or is cut off at `limit`).
   */
  private tryFast(buf: Uint8Array, start: number, limit: number): number {
    const type = typePrefix(buf, start, limit);
    if (type < 0) {
      return -1;
    }
    let end = this.scan(type, buf, start, limit);
    if (end < 0) {
      return -1;
    }
    if (buf[end] === 0x0d) {
      end++;
    }
    if (buf[end] !== NEWLINE) {
      return -1;
    }
    this.sink.line = this.line;
    this.events++;
    this.sink.handle(type, this.rec);
    return end;
  }

  /**
   * The fast scanner with this type's key template; the template follows the line's keys. The
   * record already reads from `buf` (`readFrom`).
   */
  private scan(type: number, buf: Uint8Array, start: number, limit: number): number {
    const rec = this.rec;
    rec.reset();
    const slot = type < 1024 ? type : 1023;
    const template = this.templates[slot];
    const end = fastScan(buf, start, limit, rec, template, this.learned);
    if (end >= 0 && this.learned.count >= 0) {
      this.templates[slot] = this.learned;
      this.learned = template ?? new KeyTemplate();
    }
    return end;
  }

  readLine(buf: Uint8Array, start: number, end: number): void {
    if (end > start && buf[end - 1] === 0x0d) {
      end--;
    }
    if (
      this.line === 1 &&
      buf[start] === 0xef &&
      buf[start + 1] === 0xbb &&
      buf[start + 2] === 0xbf
    ) {
      start += 3;
    }
    if (end <= start) {
      return;
    }
    const rec = this.rec;
    rec.reset();
    rec.readFrom(buf);
    this.sink.line = this.line;
    const type = typePrefix(buf, start, end);
    if (type >= 0) {
      if (this.scan(type, buf, start, end) === end) {
        this.events++;
        this.sink.handle(type, rec);
        return;
      }
      rec.reset();
    }
    this.readParsed(this.parse(buf, start, end));
  }

  /** One line as text (the json-parse reader). */
  readText(text: string, last = false): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line === '') {
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (last) {
        this.builder.warnings.add(
          `the file ends in the middle of line ${this.line} (truncated?): that record was dropped`,
        );
        return;
      }
      throw new ImportError(
        { file: this.file, line: this.line },
        `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    this.rec.reset();
    this.sink.line = this.line;
    this.readParsed(value);
  }

  /** The last line has no newline: a cut-off record there is a truncated file, not a bad one. */
  readLastLine(buf: Uint8Array): void {
    let value: unknown;
    try {
      value = JSON.parse(this.decode(buf, 0, buf.length));
    } catch (error) {
      if (error instanceof ImportError) {
        throw error;
      }
      this.builder.warnings.add(
        `the file ends in the middle of line ${this.line} (truncated?): that record was dropped`,
      );
      return;
    }
    this.rec.reset();
    this.sink.line = this.line;
    this.readParsed(value);
  }

  finish(): NsysJsonResult {
    if (this.events === 0 && !this.sawStrings) {
      throw new ImportError(
        { file: this.file },
        'no nsys events or string table found: is this an nsys JSON export?',
      );
    }
    if (!this.sawStrings) {
      this.builder.warnings.add('the file has no string table: names are shown as string numbers');
    }
    this.sink.finish();
    return {
      producer: this.producer === '' ? 'nsys (JSON export)' : this.producer,
      lines: this.line,
    };
  }

  private parse(buf: Uint8Array, start: number, end: number): unknown {
    const text = this.decode(buf, start, end);
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ImportError(
        { file: this.file, line: this.line },
        `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  private decode(buf: Uint8Array, start: number, end: number): string {
    try {
      return utf8.decode(buf.subarray(start, end));
    } catch {
      throw new ImportError({ file: this.file, line: this.line }, 'invalid UTF-8 in this line');
    }
  }

  private readParsed(value: unknown): void {
    if (!isObject(value)) {
      throw new ImportError(
        { file: this.file, line: this.line },
        'expected a JSON object per line (nsys export --type json)',
      );
    }
    if ('Type' in value) {
      const type = value['Type'];
      if (typeof type !== 'number') {
        throw new ImportError(
          { file: this.file, line: this.line, field: 'Type' },
          'Type must be a number',
        );
      }
      fillRecord(this.rec, value, 0);
      this.events++;
      this.sink.handle(type, this.rec);
      return;
    }
    const data = value['data'];
    if (Array.isArray(data)) {
      this.readTable(data);
      return;
    }
    const kind = value['type'];
    if (kind === 'String') {
      this.sawStrings = true;
      const id = Number(value['id']);
      if (!Number.isInteger(id) || id < 0 || typeof value['value'] !== 'string') {
        throw new ImportError(
          { file: this.file, line: this.line, field: 'id' },
          'a String record needs an integer id and a string value',
        );
      }
      this.setString(id, value['value']);
      return;
    }
    if (kind === 'ThreadName') {
      this.threadName(value, 'nameId');
      return;
    }
    if ('table' in value) {
      this.builder.warnings.add(
        'rows of the one-row-per-line layout ("table" key) are not read',
        `line ${this.line}`,
      );
      return;
    }
    this.builder.warnings.add('lines of an unknown shape skipped', `line ${this.line}`);
  }

  private readTable(data: unknown[]): void {
    if (data.length === 0) {
      return;
    }
    if (typeof data[0] === 'string') {
      this.sawStrings = true;
      data.forEach((value, index) => {
        if (typeof value !== 'string') {
          throw new ImportError(
            { file: this.file, line: this.line, path: `data[${index}]` },
            'the string table holds a non-string',
          );
        }
        this.setString(index, value);
      });
      return;
    }
    data.forEach((row, index) => {
      if (isObject(row) && 'nameIdx' in row) {
        this.threadName(row, 'nameIdx', index);
      }
    });
  }

  private setString(index: number, value: string): void {
    this.builder.setSourceString(index, value);
    if (this.producer === '') {
      const version = /nsight-systems[/-](\d{4}\.\d+(\.\d+)*)/i.exec(value);
      if (version !== null) {
        this.producer = `nsys ${version[1]}`;
      }
    }
  }

  private threadName(row: Record<string, unknown>, nameKey: string, index?: number): void {
    const tid = row['globalTid'];
    const nameIndex = Number(row[nameKey]);
    const path = index === undefined ? undefined : `data[${index}]`;
    if ((typeof tid !== 'string' && typeof tid !== 'number') || !/^\d+$/.test(String(tid))) {
      throw new ImportError(
        {
          file: this.file,
          line: this.line,
          field: 'globalTid',
          ...(path === undefined ? {} : { path }),
        },
        'globalTid must be an integer',
      );
    }
    if (!Number.isInteger(nameIndex) || nameIndex < 0) {
      throw new ImportError(
        {
          file: this.file,
          line: this.line,
          field: nameKey,
          ...(path === undefined ? {} : { path }),
        },
        `${nameKey} must be a string index`,
      );
    }
    const id = BigInt(tid);
    this.sink.threadName(id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : id, nameIndex);
  }
}

/** `{"Type":NN,` → NN, or -1 when the line does not start like that. */
function typePrefix(buf: Uint8Array, start: number, end: number): number {
  // {"Type":  is 8 bytes
  if (
    end - start < 10 ||
    buf[start] !== 0x7b ||
    buf[start + 1] !== 0x22 ||
    buf[start + 2] !== 0x54 ||
    buf[start + 3] !== 0x79 ||
    buf[start + 4] !== 0x70 ||
    buf[start + 5] !== 0x65 ||
    buf[start + 6] !== 0x22 ||
    buf[start + 7] !== 0x3a
  ) {
    return -1;
  }
  let i = start + 8;
  let v = 0;
  let d = buf[i]! - 0x30;
  if (d < 0 || d > 9) {
    return -1;
  }
  while (d >= 0 && d <= 9 && i < end) {
    v = v * 10 + d;
    d = buf[++i]! - 0x30;
  }
  return v;
}
