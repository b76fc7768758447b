import { ByteStrings } from './byte-strings.ts';
import type { ChromeEvent, IdValue } from './chrome-event.ts';
import { ArgKey } from './event-keys.ts';
import { fractionEnd, skipSpace, skipValue } from './json-skip.ts';
import { COMMA, DOT, MINUS, NINE, QUOTE, RBRACKET, ZERO, plainEndWords } from '../io/json-bytes.ts';

/** Containers nested deeper than this inside an event are left to JSON.parse. */
const maxNesting = 32;
/** A number with more digits than this may not be exact in the digit loop: Number() reads it. */
const maxFastDigits = 15;
const textDecoder = new TextDecoder();

/**
 * The values of an event's kept keys, read by the event scanner (event-scanner.ts, which extends
 * this class) straight from the bytes as JSON.parse would give them: ids and counts (numbers and
 * plain strings, interned), `grid`/`block` triples, and the DataView the scanner reads words by.
 */
export class EventValues {
  readonly strings = new ByteStrings();
  protected readonly nesting = new Uint8Array(maxNesting);
  /** The value just read by `idValue` / `number`. */
  protected value: IdValue = undefined;
  private viewBuf: Uint8Array | undefined = undefined;
  protected view: DataView = new DataView(new ArrayBuffer(0));

  /** A DataView of `buf` (the last one made, when it is the same buffer). */
  protected viewOf(buf: Uint8Array): DataView {
    if (buf !== this.viewBuf) {
      this.viewBuf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    return this.view;
  }

  /** `[x, y, z, …]` at `buf[i]`: its first three elements into `e`; the index past it. */
  protected triple(buf: Uint8Array, i: number, end: number, e: ChromeEvent, key: ArgKey): number {
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
        i = skipValue(buf, this.view, i, end, this.nesting);
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
  /**
   * A string at `buf[i]` decoded on its own, never interned (texts that differ from event to
   * event, as XLA's kernel_details and memcpy_details, would fill the string table); anything
   * else as `idValue`.
   */
  protected textValue(buf: Uint8Array, i: number, end: number): number {
    if (buf[i] !== QUOTE) {
      return this.idValue(buf, i, end);
    }
    const start = i + 1;
    const j = plainEndWords(buf, this.view, start, end);
    if (j < 0) {
      return -1;
    }
    this.value = textDecoder.decode(buf.subarray(start, j));
    return j + 1;
  }

  protected idValue(buf: Uint8Array, i: number, end: number): number {
    const c = buf[i]!;
    if (c === QUOTE) {
      const start = i + 1;
      const j = plainEndWords(buf, this.view, start, end);
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
    return skipValue(buf, this.view, i, end, this.nesting);
  }

  /** A JSON number at `buf[i]` into `this.value`; -1 when it is not JSON's number syntax. */
  protected number(buf: Uint8Array, i: number, end: number): number {
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
        const after = fractionEnd(buf, this.view, i, end);
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

export function setArg(e: ChromeEvent, key: ArgKey, v: IdValue): void {
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
    case ArgKey.MemcpyDetails:
      e.memcpyDetails = v;
      break;
    case ArgKey.KernelDetails:
      e.kernelDetails = v;
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
