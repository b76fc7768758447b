import { ImportError } from '../import-error.ts';
import { ChromeEvent, fillFromParsed } from './chrome-event.ts';
import { isObject } from './chrome-metadata.ts';
import { locateTimes } from './event-times.ts';
import { ChromeEventScanner } from './event-scanner.ts';
import { warmUpScanner } from './scanner-warm-up.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** One event or one top-level value (e.g. deviceProperties) may not exceed this. */
const maxValueBytes = 256 << 20;

const enum State {
  Start,
  ObjectKey,
  KeyString,
  Colon,
  ValueStart,
  Value,
  Array,
  Element,
  AfterTop,
}

export interface SplitEvents {
  /**
   * An element of the events array (`traceEvents` or the top-level array) by index, read into
   * `e` (valid only during the call, like the bytes it points into). `where` is the array's JSON
   * path (`traceEvents`, or '' for a bare array): the event's is `${where}[${index}]`.
   */
  event(e: ChromeEvent, index: number, where: string): void;
  /**
   * A top-level key's value other than `traceEvents`; only keys in `wantKeys` are parsed. `bytes`
   * is its JSON text (valid only during the call), for integers a double cannot hold exactly.
   */
  topValue(key: string, value: unknown, bytes: Uint8Array): void;
}

export interface SplitResult {
  readonly events: number;
  /** The input ended before the array or object closed (Chrome allows an unterminated array). */
  readonly unterminated: boolean;
  /** Bytes of a cut-off last event that were dropped. */
  readonly droppedTailBytes: number;
}

/** `fast: false` reads every event through JSON.parse (the reference for the scanner's tests). */
export interface SplitOptions {
  readonly fast?: boolean;
}

/**
 * Cuts a Chrome trace (`{"traceEvents":[…], …}` or a bare `[…]`) into its events as bytes
 * arrive: the file never becomes one string. Each event is read by the byte scanner where it
 * can (ChromeEventScanner), else JSON.parsed on its own; both fill the same ChromeEvent.
 */
export class JsonEventSplitter {
  private state = State.Start;
  private topArray = false;
  private key: number[] = [];
  private keyText = '';
  private depth = 0;
  private inString = false;
  private escape = false;
  private scalar = false;
  private parts: Uint8Array[] = [];
  private partBytes = 0;
  private events = 0;
  private byteOffset = 0;
  private readonly rec = new ChromeEvent();
  private readonly scanner = new ChromeEventScanner();
  private readonly fast: boolean;

  constructor(
    private readonly file: string,
    private readonly sink: SplitEvents,
    private readonly wantKeys: ReadonlySet<string>,
    options: SplitOptions = {},
  ) {
    this.fast = options.fast ?? true;
    if (this.fast) {
      warmUpScanner();
    }
  }

  push(chunk: Uint8Array): void {
    let i = 0;
    let capStart = this.state === State.Element || this.state === State.Value ? 0 : -1;
    const n = chunk.length;
    while (i < n) {
      const c = chunk[i]!;
      switch (this.state) {
        case State.Start:
          if (c === 0x5b) {
            this.topArray = true;
            this.state = State.Array;
          } else if (c === 0x7b) {
            this.state = State.ObjectKey;
          } else if (!isSpace(c) && c !== 0xef && c !== 0xbb && c !== 0xbf) {
            throw this.error(i, 'expected a JSON object or array');
          }
          break;
        case State.ObjectKey:
          if (c === 0x22) {
            this.key = [];
            this.state = State.KeyString;
          } else if (c === 0x7d) {
            this.state = State.AfterTop;
          } else if (c !== 0x2c && !isSpace(c)) {
            throw this.error(i, 'expected a key in the top-level object');
          }
          break;
        case State.KeyString:
          if (c === 0x22 && !this.escape) {
            this.keyText = utf8Decode(Uint8Array.from(this.key), () =>
              this.error(i, 'invalid UTF-8 in a key'),
            );
            this.state = State.Colon;
          } else {
            this.escape = c === 0x5c && !this.escape;
            this.key.push(c);
          }
          break;
        case State.Colon:
          if (c === 0x3a) {
            this.state = State.ValueStart;
          } else if (!isSpace(c)) {
            throw this.error(i, `expected ':' after "${this.keyText}"`);
          }
          break;
        case State.ValueStart:
          if (isSpace(c)) {
            break;
          }
          if (this.keyText === 'traceEvents') {
            if (c !== 0x5b) {
              throw this.error(i, 'traceEvents must be an array');
            }
            this.state = State.Array;
            break;
          }
          this.state = State.Value;
          capStart = i;
          this.depth = 0;
          this.inString = false;
          this.scalar = c !== 0x7b && c !== 0x5b && c !== 0x22;
          if (this.scalar) {
            i++; // a scalar's first byte never ends it
          }
          continue;
        case State.Value:
          if (this.scan(c, this.scalar)) {
            this.finishValue(chunk, capStart, this.scalar ? i : i + 1, i);
            capStart = -1;
            this.state = this.scalar && c === 0x7d ? State.AfterTop : State.ObjectKey;
          }
          break;
        case State.Array:
          if (c === 0x7b) {
            if (this.fast) {
              // Most events are read here, straight from the chunk; the rest as below.
              const at = this.scanRun(chunk, i);
              if (at !== i) {
                i = at;
                continue;
              }
            }
            this.state = State.Element;
            capStart = i;
            this.depth = 0;
            this.inString = false;
            continue;
          } else if (c === 0x5d) {
            this.state = this.topArray ? State.AfterTop : State.ObjectKey;
          } else if (c !== 0x2c && !isSpace(c)) {
            throw this.error(
              i,
              `expected an event object in the events array (event ${this.events})`,
            );
          }
          break;
        case State.Element: {
          // Most bytes of a trace are inside events: scanned in one tight loop, not per state.
          const end = this.scanElement(chunk, i);
          if (end < 0) {
            i = n;
            continue;
          }
          this.finishElement(chunk, capStart, end + 1, end);
          capStart = -1;
          this.state = State.Array;
          i = end + 1;
          continue;
        }
        case State.AfterTop:
          if (!isSpace(c)) {
            throw this.error(i, 'unexpected data after the end of the trace');
          }
          break;
      }
      i++;
    }
    if (capStart >= 0) {
      this.keep(chunk.slice(capStart));
    }
    this.byteOffset += n;
  }

  end(): SplitResult {
    if (this.state === State.Start) {
      throw new ImportError({ file: this.file }, 'the file is empty');
    }
    const dropped = this.partBytes;
    const unterminated = this.state !== State.AfterTop;
    if (
      unterminated &&
      this.state !== State.Array &&
      this.state !== State.ObjectKey &&
      this.state !== State.Element
    ) {
      throw new ImportError(
        { file: this.file, path: this.keyText },
        `the file ends inside the value of "${this.keyText}"`,
      );
    }
    this.parts = [];
    this.partBytes = 0;
    return { events: this.events, unterminated, droppedTailBytes: dropped };
  }

  /**
   * Reads the events that follow one another from `chunk[i]` (an event's `{`) through the byte
   * scanner, with the commas and spaces between them; returns the index of the first byte it
   * leaves to `push` (an event the scanner does not read, the array's end, anything else), or
   * the chunk's length. The hot loop of an import: a method of its own, so that it is optimized
   * as a whole and not deoptimized by the state machine's rare paths around it.
   */
  private scanRun(chunk: Uint8Array, i: number): number {
    const n = chunk.length;
    const rec = this.rec;
    const scanner = this.scanner;
    const sink = this.sink;
    const where = this.where();
    while (i < n) {
      const c = chunk[i]!;
      if (c === 0x7b) {
        const end = scanner.scan(chunk, i, n, rec);
        if (end < 0) {
          return i;
        }
        sink.event(rec, this.events++, where);
        i = end;
      } else if (c === 0x2c || isSpace(c)) {
        i++;
      } else {
        return i;
      }
    }
    return i;
  }

  /** Tracks strings and nesting; true when the current value is complete at byte `c`. */
  private scan(c: number, scalar: boolean): boolean {
    if (scalar) {
      return c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c);
    }
    if (this.inString) {
      if (this.escape) {
        this.escape = false;
      } else if (c === 0x5c) {
        this.escape = true;
      } else if (c === 0x22) {
        this.inString = false;
        return this.depth === 0;
      }
      return false;
    }
    if (c === 0x22) {
      this.inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      this.depth++;
    } else if (c === 0x7d || c === 0x5d) {
      this.depth--;
      return this.depth === 0;
    }
    return false;
  }

  /**
   * Scans an event object from `from` (its `{` or a byte inside it) with the string and nesting
   * state in locals; returns the index of its closing `}`, or -1 when it goes on past the chunk
   * (the state is then kept for the next chunk).
   */
  private scanElement(chunk: Uint8Array, from: number): number {
    let depth = this.depth;
    let inString = this.inString;
    let escape = this.escape;
    const n = chunk.length;
    for (let i = from; i < n; i++) {
      const c = chunk[i]!;
      if (inString) {
        if (escape) {
          escape = false;
        } else if (c === 0x5c) {
          escape = true;
        } else if (c === 0x22) {
          inString = false;
        }
      } else if (c === 0x22) {
        inString = true;
      } else if (c === 0x7b || c === 0x5b) {
        depth++;
      } else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) {
          this.depth = 0;
          this.inString = false;
          this.escape = false;
          return i;
        }
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escape = escape;
    return -1;
  }

  private keep(part: Uint8Array): void {
    this.parts.push(part);
    this.partBytes += part.length;
    if (this.partBytes > maxValueBytes) {
      throw new ImportError(
        { file: this.file, path: this.where() },
        `one value is larger than ${maxValueBytes} bytes`,
      );
    }
  }

  private take(chunk: Uint8Array, start: number, end: number): Uint8Array {
    if (this.parts.length === 0) {
      return chunk.subarray(start, end);
    }
    this.keep(chunk.subarray(start, end));
    const out = new Uint8Array(this.partBytes);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    this.parts = [];
    this.partBytes = 0;
    return out;
  }

  private finishElement(chunk: Uint8Array, start: number, end: number, at: number): void {
    const bytes = this.take(chunk, Math.max(0, start), end);
    const index = this.events++;
    const e = this.rec;
    if (!this.fast || this.scanner.scan(bytes, 0, bytes.length, e) !== bytes.length) {
      const path = `${this.where()}[${index}]`;
      const value = this.parse(bytes, at, path);
      if (!isObject(value)) {
        throw new ImportError({ file: this.file, path }, 'an event must be an object');
      }
      fillFromParsed(e, value, bytes);
      locateTimes(e);
    }
    this.sink.event(e, index, this.where());
  }

  private finishValue(chunk: Uint8Array, start: number, end: number, at: number): void {
    const bytes = this.take(chunk, Math.max(0, start), end);
    if (this.wantKeys.has(this.keyText)) {
      this.sink.topValue(this.keyText, this.parse(bytes, at, this.keyText), bytes);
    }
  }

  private parse(bytes: Uint8Array, at: number, path: string): unknown {
    const text = utf8Decode(
      bytes,
      () => new ImportError({ file: this.file, path }, 'invalid UTF-8'),
    );
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ImportError(
        { file: this.file, path },
        `not valid JSON near byte ${this.byteOffset + at} (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  private where(): string {
    return this.topArray ? '' : 'traceEvents';
  }

  private error(at: number, problem: string): ImportError {
    return new ImportError({ file: this.file }, `${problem} at byte ${this.byteOffset + at}`);
  }
}

function utf8Decode(bytes: Uint8Array, fail: () => ImportError): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw fail();
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
