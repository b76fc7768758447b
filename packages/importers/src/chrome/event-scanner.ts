import { ByteStrings } from './byte-strings.ts';
import type { ChromeEvent, IdValue } from './chrome-event.ts';
import { ArgKey, TopKey, argKeyOf, topKeyOf } from './event-keys.ts';
import { fractionEnd, skipSpace, skipValue } from './json-skip.ts';
import {
  COLON,
  COMMA,
  DOT,
  LBRACE,
  LBRACKET,
  MINUS,
  NINE,
  QUOTE,
  RBRACE,
  RBRACKET,
  ZERO,
  plainEnd,
} from '../io/json-bytes.ts';

/** Containers nested deeper than this inside an event are left to JSON.parse. */
const maxNesting = 32;
/** A number with more digits than this may not be exact in the digit loop: Number() reads it. */
const maxFastDigits = 15;

/**
 * Reads one Chrome trace event straight from its bytes into a ChromeEvent, in one pass: it
 * checks that the event is JSON, decodes only the fields the importer keeps and interns the
 * strings among them from their bytes. It is only ever a shortcut: `scan` returns -1 for
 * anything it does not read exactly as JSON.parse would (escapes, non-ASCII bytes, a kept key
 * given twice — JSON.parse keeps the last —, a time that is an object or array, deep nesting,
 * metadata events, invalid JSON, an event cut off by the end of the chunk), and the caller then
 * reads the event through JSON.parse, which also gives the errors.
 */
export class ChromeEventScanner {
  readonly strings = new ByteStrings();
  private readonly nesting = new Uint8Array(maxNesting);
  /** The value just read by `idValue` / `string`. */
  private value: IdValue = undefined;

  /**
   * Reads the event whose `{` is at `buf[start]`, looking no further than `end`; returns the
   * index just past its `}`, or -1 (the event must go through JSON.parse).
   */
  scan(buf: Uint8Array, start: number, end: number, e: ChromeEvent): number {
    e.reset(buf);
    let seen = 0;
    let i = skipSpace(buf, start + 1, end);
    if (i < end && buf[i] === RBRACE) {
      return i + 1;
    }
    for (;;) {
      if (i >= end || buf[i] !== QUOTE) {
        return -1;
      }
      const keyStart = i + 1;
      i = plainEnd(buf, keyStart, end);
      if (i < 0) {
        return -1;
      }
      const key = topKeyOf(buf, keyStart, i - keyStart);
      i = skipSpace(buf, i + 1, end);
      if (i >= end || buf[i] !== COLON) {
        return -1;
      }
      i = skipSpace(buf, i + 1, end);
      if (i >= end) {
        return -1;
      }
      if (key !== TopKey.Other) {
        const bit = 1 << key;
        if ((seen & bit) !== 0) {
          return -1;
        }
        seen |= bit;
      }
      switch (key) {
        case TopKey.Ph:
        case TopKey.Cat: {
          i = this.idValue(buf, i, end);
          const v = this.value;
          const s = typeof v === 'string' ? v : undefined;
          if (key === TopKey.Ph) {
            e.ph = s;
          } else {
            e.cat = s;
          }
          break;
        }
        case TopKey.Name:
          // Decoded only if read: flows, instants and skipped categories never need theirs.
          if (buf[i] === QUOTE) {
            const at = i + 1;
            i = plainEnd(buf, at, end);
            if (i < 0) {
              return -1;
            }
            e.nameAt(at, i, this.strings);
            i++;
          } else {
            i = skipValue(buf, i, end, this.nesting);
          }
          break;
        case TopKey.Pid:
          i = this.idValue(buf, i, end);
          e.pid = this.value;
          break;
        case TopKey.Tid:
          i = this.idValue(buf, i, end);
          e.tid = this.value;
          break;
        case TopKey.Ts:
        case TopKey.Dur: {
          const c = buf[i]!;
          if (c === LBRACE || c === LBRACKET) {
            return -1; // EventTimes quotes such a value as its own scan cuts it
          }
          const at = i;
          i = skipValue(buf, i, end, this.nesting);
          if (key === TopKey.Ts) {
            e.tsAt = at;
            e.tsEnd = i;
          } else {
            e.durAt = at;
            e.durEnd = i;
          }
          break;
        }
        case TopKey.Args:
          i = buf[i] === LBRACE ? this.args(buf, i, end, e) : skipValue(buf, i, end, this.nesting);
          break;
        default:
          i = skipValue(buf, i, end, this.nesting);
      }
      if (i < 0) {
        return -1;
      }
      i = skipSpace(buf, i, end);
      if (i >= end) {
        return -1;
      }
      const c = buf[i]!;
      if (c === COMMA) {
        i = skipSpace(buf, i + 1, end);
        continue;
      }
      if (c !== RBRACE) {
        return -1;
      }
      // Metadata events are few, and ChromeMetadata reads them from the parsed object.
      return e.ph === 'M' ? -1 : i + 1;
    }
  }

  /** The `args` object at `buf[i]` (`{`): its kept keys into `e`; returns the index past it. */
  private args(buf: Uint8Array, i: number, end: number, e: ChromeEvent): number {
    let seen = 0;
    i = skipSpace(buf, i + 1, end);
    if (i < end && buf[i] === RBRACE) {
      return i + 1;
    }
    for (;;) {
      if (i >= end || buf[i] !== QUOTE) {
        return -1;
      }
      const keyStart = i + 1;
      i = plainEnd(buf, keyStart, end);
      if (i < 0) {
        return -1;
      }
      const key = argKeyOf(buf, keyStart, i - keyStart);
      i = skipSpace(buf, i + 1, end);
      if (i >= end || buf[i] !== COLON) {
        return -1;
      }
      i = skipSpace(buf, i + 1, end);
      if (i >= end) {
        return -1;
      }
      if (key === ArgKey.Other) {
        i = skipValue(buf, i, end, this.nesting);
      } else {
        const bit = 1 << key;
        if ((seen & bit) !== 0) {
          return -1;
        }
        seen |= bit;
        if (key === ArgKey.Grid || key === ArgKey.Block) {
          i =
            buf[i] === LBRACKET
              ? this.triple(buf, i, end, e, key)
              : skipValue(buf, i, end, this.nesting);
        } else {
          i = this.idValue(buf, i, end);
          setArg(e, key, this.value);
        }
      }
      if (i < 0) {
        return -1;
      }
      i = skipSpace(buf, i, end);
      if (i >= end) {
        return -1;
      }
      const c = buf[i]!;
      if (c === COMMA) {
        i = skipSpace(buf, i + 1, end);
        continue;
      }
      return c === RBRACE ? i + 1 : -1;
    }
  }

  /** `[x, y, z, …]` at `buf[i]`: its first three elements into `e`; the index past it. */
  private triple(buf: Uint8Array, i: number, end: number, e: ChromeEvent, key: ArgKey): number {
    let k = 0;
    i = skipSpace(buf, i + 1, end);
    if (i < end && buf[i] === RBRACKET) {
      return i + 1;
    }
    for (;;) {
      if (i >= end) {
        return -1;
      }
      if (k < 3) {
        i = this.idValue(buf, i, end);
        const v = this.value;
        if (key === ArgKey.Grid) {
          if (k === 0) {
            e.gridX = v;
          } else if (k === 1) {
            e.gridY = v;
          } else {
            e.gridZ = v;
          }
        } else if (k === 0) {
          e.blockX = v;
        } else if (k === 1) {
          e.blockY = v;
        } else {
          e.blockZ = v;
        }
      } else {
        i = skipValue(buf, i, end, this.nesting);
      }
      if (i < 0) {
        return -1;
      }
      k++;
      i = skipSpace(buf, i, end);
      if (i >= end) {
        return -1;
      }
      const c = buf[i]!;
      if (c === COMMA) {
        i = skipSpace(buf, i + 1, end);
        continue;
      }
      return c === RBRACKET ? i + 1 : -1;
    }
  }

  /**
   * The value at `buf[i]` into `this.value` as JSON.parse would give it if it is a number or a
   * string, undefined for any other value (skipped); returns the index past it, or -1.
   */
  private idValue(buf: Uint8Array, i: number, end: number): number {
    const c = buf[i]!;
    if (c === QUOTE) {
      const start = i + 1;
      const j = plainEnd(buf, start, end);
      if (j < 0) {
        return -1;
      }
      this.value = this.strings.get(buf, start, j);
      return j + 1;
    }
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      return this.number(buf, i, end);
    }
    this.value = undefined;
    return skipValue(buf, i, end, this.nesting);
  }

  /** A JSON number at `buf[i]` into `this.value`; -1 when it is not JSON's number syntax. */
  private number(buf: Uint8Array, i: number, end: number): number {
    const start = i;
    const negative = buf[i] === MINUS;
    if (negative) {
      i++;
    }
    let v = 0;
    const digitsStart = i;
    if (i < end && buf[i] === ZERO) {
      i++;
    } else {
      while (i < end) {
        const d = buf[i]! - ZERO;
        if (d < 0 || d > 9) {
          break;
        }
        v = v * 10 + d;
        i++;
      }
    }
    const digits = i - digitsStart;
    if (digits === 0) {
      return -1;
    }
    if (i < end) {
      const c = buf[i]!;
      if (c === DOT || c === 0x65 || c === 0x45) {
        const after = fractionEnd(buf, i, end);
        if (after < 0) {
          return -1;
        }
        this.value = Number(latin1(buf, start, after));
        return after;
      }
    }
    // Plain integers of up to 15 digits are exact in the loop; longer ones round as Number does.
    this.value = digits > maxFastDigits ? Number(latin1(buf, start, i)) : negative ? -v : v;
    return i;
  }
}

function setArg(e: ChromeEvent, key: ArgKey, v: IdValue): void {
  switch (key) {
    case ArgKey.Device:
      e.device = v;
      break;
    case ArgKey.Stream:
      e.stream = v;
      break;
    case ArgKey.Context:
      e.context = v;
      break;
    case ArgKey.Correlation:
      e.correlation = v;
      break;
    case ArgKey.Bytes:
      e.bytesArg = v;
      break;
    case ArgKey.Size:
      e.size = v;
      break;
    case ArgKey.RecordCorrelation:
      e.recordCorrelation = v;
      break;
    case ArgKey.SharedMemory:
      e.sharedMemory = v;
      break;
    case ArgKey.Registers:
      e.registers = v;
      break;
    default:
      break;
  }
}

function latin1(buf: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let k = start; k < end; k++) {
    s += String.fromCharCode(buf[k]!);
  }
  return s;
}
