import { ImportError } from '../import-error.ts';
import type { ChromeEvent } from './chrome-event.ts';
import type { Micros } from './micros.ts';
import { MicrosRead, readMicros } from './micros.ts';

// Times are staged 2^52 ns above the first event's whole µs, so that events before it stay ≥ 0
// (range staging reads a negative end as "never ended") and every time, end included, stays an
// exact integer below 2^53: events may lie up to 2^52 ns (about 52 days) either side of it.
const biasNs = 2 ** 52;
const maxOffsetUs = Math.floor((biasNs - 1000) / 1000);

/**
 * Reads an event's `ts` and `dur` (µs, numbers or numeric strings, up to ns in three decimals)
 * exactly from the event's JSON text, never through a double of the whole value, and turns them
 * into integer ns relative to a base near the first time read. `originNs()` is that base in ns
 * since the source's zero, as a bigint, for the trace's origin.
 */
export class EventTimes {
  /** ns relative to the base; integers. */
  startNs = 0;
  durNs = 0;
  private baseUs = Number.NaN;
  private readonly value: Micros = { us: 0, ns: 0, negative: false };

  constructor(
    private readonly file: string,
    private readonly onNegativeDur: (path: string) => void,
  ) {}

  /** The base in ns since the source's zero (0 before any time was read). */
  originNs(): bigint {
    return Number.isNaN(this.baseUs) ? 0n : BigInt(this.baseUs) * 1000n - BigInt(biasNs);
  }

  /**
   * Sets `startNs` and `durNs` from the byte ranges of the event's `ts` and `dur` (valid JSON:
   * the scanner or JSON.parse read them). A missing `dur` is 0. `pathOf` names the event for
   * messages (built only when one is needed).
   */
  read(e: ChromeEvent, pathOf: () => string): void {
    const bytes = e.bytes;
    if (e.tsAt < 0) {
      throw new ImportError(
        { file: this.file, path: `${pathOf()}.ts` },
        'ts is missing: a complete or begin/end event needs a time in µs',
      );
    }
    const ts =
      e.tsUs >= 0
        ? this.scanned(e.tsUs, e.tsNs)
        : this.number(bytes, e.tsAt, e.tsEnd, pathOf, 'ts');
    this.startNs = this.tsNs(ts, bytes, e.tsAt, e.tsEnd, pathOf);
    if (e.durAt < 0) {
      this.durNs = 0;
    } else {
      const dur =
        e.durUs >= 0
          ? this.scanned(e.durUs, e.durNs)
          : this.number(bytes, e.durAt, e.durEnd, pathOf, 'dur');
      this.durNs = this.durOf(dur, bytes, e.durAt, e.durEnd, pathOf);
    }
    if (this.startNs + this.durNs > Number.MAX_SAFE_INTEGER) {
      throw this.error(
        `${pathOf()}.dur`,
        `the event ends more than ${maxOffsetUs} µs (about 52 days) after the first event's ${this.baseUs} µs`,
      );
    }
  }

  /** `v` read from `bytes[at, end)`; `pathOf()` is the event's; messages name its `.ts`. */
  private tsNs(
    v: Micros,
    bytes: Uint8Array,
    at: number,
    end: number,
    pathOf: () => string,
  ): number {
    if (v.negative && (v.us > 0 || v.ns > 0)) {
      throw this.error(`${pathOf()}.ts`, `ts must be ≥ 0 µs, got ${this.text(bytes, at, end)}`);
    }
    if (Number.isNaN(this.baseUs)) {
      this.baseUs = v.us;
    }
    // Both whole-µs values are exact below 2^53, so their difference is too; scaled to ns and
    // biased it stays an exact integer in [0, 2^53).
    const fromBaseUs = v.us - this.baseUs;
    if (Math.abs(fromBaseUs) > maxOffsetUs) {
      throw this.error(
        `${pathOf()}.ts`,
        `ts ${this.text(bytes, at, end)} µs is ${Math.abs(fromBaseUs)} µs from the first event's ${this.baseUs} µs; events may lie at most ${maxOffsetUs} µs (about 52 days) either side of it`,
      );
    }
    return fromBaseUs * 1000 + v.ns + biasNs;
  }

  private durOf(
    v: Micros,
    bytes: Uint8Array,
    at: number,
    end: number,
    pathOf: () => string,
  ): number {
    if (v.us > maxOffsetUs) {
      throw this.error(
        `${pathOf()}.dur`,
        `dur must be at most ${maxOffsetUs} µs (about 52 days), got ${this.text(bytes, at, end)}`,
      );
    }
    if (v.negative && (v.us > 0 || v.ns > 0)) {
      this.onNegativeDur(pathOf());
      return 0;
    }
    return v.us * 1000 + v.ns;
  }

  /** A value the scanner read (non-negative). */
  private scanned(us: number, ns: number): Micros {
    const v = this.value;
    v.us = us;
    v.ns = ns;
    v.negative = false;
    return v;
  }

  /** The number at [at, end), unquoted if it is a JSON string; errors name `path.key`. */
  private number(
    bytes: Uint8Array,
    at: number,
    end: number,
    pathOf: () => string,
    key: string,
  ): Micros {
    const quoted = bytes[at] === 0x22;
    const read = readMicros(bytes, quoted ? at + 1 : at, quoted ? end - 1 : end, this.value);
    if (read === MicrosRead.NotANumber) {
      throw this.error(
        `${pathOf()}.${key}`,
        `${key} must be a number of µs, got ${this.text(bytes, at, end)}`,
      );
    }
    if (read === MicrosRead.TooLarge) {
      throw this.error(
        `${pathOf()}.${key}`,
        `${key} must be below 2^53 µs (9007199254740992 µs), got ${this.text(bytes, at, end)}`,
      );
    }
    return this.value;
  }

  /** The raw value for a message, shortened. */
  private text(bytes: Uint8Array, at: number, end: number): string {
    const text = new TextDecoder().decode(bytes.subarray(at, Math.min(end, at + 40)));
    return end - at > 40 ? `${text}…` : text;
  }

  private error(path: string, problem: string): ImportError {
    return new ImportError({ file: this.file, path }, problem);
  }
}

/** Index of the closing quote of the string whose content starts at `i`. */
function stringEnd(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i]!;
    if (c === 0x22) {
      return i;
    }
    i += c === 0x5c ? 2 : 1;
  }
  return n;
}

function scalarEnd(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i]!;
    if (
      c === 0x2c ||
      c === 0x7d ||
      c === 0x5d ||
      c === 0x20 ||
      c === 0x0a ||
      c === 0x0d ||
      c === 0x09
    ) {
      return i;
    }
    i++;
  }
  return n;
}

function skipSpace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      return i;
    }
    i++;
  }
  return i;
}

/**
 * Finds the values of the top-level keys `ts` and `dur` in a JSON.parse'd event's text `e.bytes`
 * (byte ranges; a string value keeps its quotes). Kineto writes both before `args`, so the walk
 * usually stops early.
 */
export function locateTimes(e: ChromeEvent): void {
  const bytes = e.bytes;
  e.tsAt = e.tsEnd = e.durAt = e.durEnd = -1;
  const n = bytes.length;
  let i = bytes.indexOf(0x7b) + 1;
  let depth = 1;
  while (i > 0 && i < n) {
    const c = bytes[i]!;
    if (c === 0x22) {
      const keyStart = i + 1;
      i = stringEnd(bytes, keyStart);
      if (depth !== 1) {
        i++;
        continue;
      }
      let j = skipSpace(bytes, i + 1);
      if (bytes[j] !== 0x3a) {
        i++; // a string value at depth 1
        continue;
      }
      j = skipSpace(bytes, j + 1);
      const len = i - keyStart;
      const isTs = len === 2 && bytes[keyStart] === 0x74 && bytes[keyStart + 1] === 0x73;
      const isDur =
        len === 3 &&
        bytes[keyStart] === 0x64 &&
        bytes[keyStart + 1] === 0x75 &&
        bytes[keyStart + 2] === 0x72;
      if (!isTs && !isDur) {
        i = j;
        continue;
      }
      const end = bytes[j] === 0x22 ? stringEnd(bytes, j + 1) + 1 : scalarEnd(bytes, j);
      if (isTs) {
        e.tsAt = j;
        e.tsEnd = end;
      } else {
        e.durAt = j;
        e.durEnd = end;
      }
      if (e.tsAt >= 0 && e.durAt >= 0) {
        return;
      }
      i = end;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) {
        return;
      }
    }
    i++;
  }
}
