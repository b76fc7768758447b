import type { ChromeEvent } from './chrome-event.ts';
import { ArgKey, TopKey, argKeyOf, topKeyOf } from './event-keys.ts';
import { skipSpace, skipValue } from './json-skip.ts';
import { EventValues, setArg } from './event-values.ts';
import { KeyGaps, gapContexts, objectEnd, objectStart, phContext } from './key-gaps.ts';
import { KeySpans } from './key-spans.ts';
import type { Micros } from './micros.ts';
import { plainMicrosEnd } from './micros.ts';
import {
  COLON,
  COMMA,
  LBRACE,
  LBRACKET,
  NINE,
  QUOTE,
  RBRACE,
  ZERO,
  plainEnd,
  plainEndWords,
} from '../io/json-bytes.ts';

const phBit = 1 << TopKey.Ph;
const catBit = 1 << TopKey.Cat;
const pidBit = 1 << TopKey.Pid;
const tidBit = 1 << TopKey.Tid;
/** The kept keys whose values mostly repeat from one event to the next: spans pass over them. */
const repeatingKeys = phBit | catBit | pidBit | tidBit;

/**
 * Reads one Chrome trace event straight from its bytes into a ChromeEvent, in one pass: it
 * checks that the event is JSON, decodes only the fields the importer keeps and interns the
 * strings among them from their bytes. It is only ever a shortcut: `scan` returns -1 for
 * anything it does not read exactly as JSON.parse would (escapes, non-ASCII bytes, a kept key
 * given twice — JSON.parse keeps the last —, a time that is an object or array, deep nesting,
 * metadata events, invalid JSON, an event cut off by the end of the chunk), and the caller then
 * reads the event through JSON.parse, which also gives the errors. Keys are mostly not read at
 * all: the bytes between two values are confirmed against those that followed the same key last
 * time (KeyGaps), runs of keys whose values repeat are confirmed whole (KeySpans), and strings
 * and digits are scanned four bytes at a time; the values are read by EventValues.
 */
export class ChromeEventScanner extends EventValues {
  private readonly topGaps = new KeyGaps(topKeyOf);
  private readonly argGaps = new KeyGaps(argKeyOf);
  private readonly spans = new KeySpans();
  private readonly micros: Micros = { us: 0, ns: 0, negative: false };
  /** The key just read by `gap`: its id, or -1 with its kind in `keyKind`. */
  private key = 0;
  private keyKind = 0;
  /** The categories given `args` contexts, and the last one looked up. */
  private readonly cats: string[] = [];
  private lastCat: string | undefined = undefined;
  private lastCatContext = 0;

  /**
   * Reads the event whose `{` is at `buf[start]`, looking no further than `end`; returns the
   * index just past its `}`, or -1 (the event must go through JSON.parse).
   */
  scan(buf: Uint8Array, start: number, end: number, e: ChromeEvent): number {
    e.reset(buf);
    const view = this.viewOf(buf);
    const gaps = this.topGaps;
    const spans = this.spans;
    let seen = 0;
    let context = 0;
    let state = objectStart;
    let i = start;
    // The span being read key by key (KeySpans): where it began (-1: none), after which key and
    // in which context, and the bits of the kept keys it has passed over.
    let spanFrom = -1;
    let spanSlot = 0;
    let spanBits = 0;
    for (;;) {
      let id: number;
      const slot = state * gapContexts + context;
      const way = spanFrom < 0 && state >= 0 ? spans.find(view, i, end, slot) : -1;
      if (way >= 0 && (seen & spans.bits[way]!) === 0) {
        const bits = spans.bits[way]!;
        seen |= bits;
        if ((bits & phBit) !== 0) {
          e.ph = spans.ph[way];
          context = phContext(e.ph);
        }
        if ((bits & catBit) !== 0) {
          e.cat = spans.cat[way];
        }
        if ((bits & pidBit) !== 0) {
          e.pid = spans.pid[way];
        }
        if ((bits & tidBit) !== 0) {
          e.tid = spans.tid[way];
        }
        i += spans.length[way]!;
        id = spans.nextKey[way]!;
      } else {
        if (spanFrom < 0 && state >= 0) {
          spanFrom = i;
          spanSlot = slot;
          spanBits = 0;
        }
        i = this.nextKey(buf, view, i, end, gaps, state, context);
        id = this.key;
        if (i < 0) {
          return -1;
        }
        if (spanFrom >= 0) {
          const kind = id >= 0 && id !== objectEnd ? gaps.kinds[id]! : TopKey.Other;
          if (id >= 0 && (repeatingKeys & (1 << kind)) !== 0) {
            spanBits |= 1 << kind;
          } else {
            if (id >= 0 && spanBits !== 0) {
              spans.learn(spanSlot, buf, spanFrom, i, id, spanBits, e);
            }
            spanFrom = -1;
          }
        }
      }
      if (id === objectEnd) {
        // Metadata events are few, and ChromeMetadata reads them from the parsed object.
        return e.ph === 'M' ? -1 : i;
      }
      const key: TopKey = id >= 0 ? gaps.kinds[id]! : this.keyKind;
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
            context = phContext(s);
          } else {
            e.cat = s;
          }
          break;
        }
        case TopKey.Name:
          // Decoded only if read: flows, instants and skipped categories never need theirs.
          if (buf[i] === QUOTE) {
            const at = i + 1;
            i = plainEndWords(buf, view, at, end);
            if (i < 0) {
              return -1;
            }
            e.nameAt(at, i, this.strings);
            i++;
          } else {
            i = skipValue(buf, view, i, end, this.nesting);
          }
          break;
        case TopKey.Pid:
          i = this.idValue(buf, i, end);
          e.pid = this.value;
          break;
        case TopKey.Id:
          e.idAt = i;
          i = skipValue(buf, view, i, end, this.nesting);
          e.idEnd = i;
          break;
        case TopKey.Bp:
          e.bpAt = i;
          i = skipValue(buf, view, i, end, this.nesting);
          e.bpEnd = i;
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
          const micros = this.micros;
          const plain = c >= ZERO && c <= NINE ? plainMicrosEnd(buf, view, i, end, micros) : -1;
          i = plain >= 0 ? plain : skipValue(buf, view, i, end, this.nesting);
          if (key === TopKey.Ts) {
            e.tsAt = at;
            e.tsEnd = i;
            if (plain >= 0) {
              e.tsUs = micros.us;
              e.tsNs = micros.ns;
            }
          } else {
            e.durAt = at;
            e.durEnd = i;
            if (plain >= 0) {
              e.durUs = micros.us;
              e.durNs = micros.ns;
            }
          }
          break;
        }
        case TopKey.Args:
          if (buf[i] === LBRACE) {
            e.argsAt = i;
            i = this.args(buf, view, i, end, e, this.catContext(e.cat));
            e.argsEnd = i;
          } else {
            i = skipValue(buf, view, i, end, this.nesting);
          }
          break;
        default:
          i = skipValue(buf, view, i, end, this.nesting);
      }
      if (i < 0) {
        return -1;
      }
      state = id;
    }
  }

  /** The `args` object at `buf[i]` (`{`): its kept keys into `e`; returns the index past it. */
  private args(
    buf: Uint8Array,
    view: DataView,
    i: number,
    end: number,
    e: ChromeEvent,
    context: number,
  ): number {
    const gaps = this.argGaps;
    let seen = 0;
    let state = objectStart;
    for (;;) {
      i = this.nextKey(buf, view, i, end, gaps, state, context);
      const id = this.key;
      if (i < 0 || id === objectEnd) {
        return i;
      }
      const key: ArgKey = id >= 0 ? gaps.kinds[id]! : this.keyKind;
      if (key === ArgKey.Other) {
        i = skipValue(buf, view, i, end, this.nesting);
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
              : skipValue(buf, view, i, end, this.nesting);
        } else {
          i =
            key === ArgKey.KernelDetails || key === ArgKey.MemcpyDetails
              ? this.textValue(buf, i, end)
              : this.idValue(buf, i, end);
          setArg(e, key, this.value);
        }
      }
      if (i < 0) {
        return -1;
      }
      state = id;
    }
  }

  /**
   * The gap at `buf[i]` after the value of key `state` (or the object's `{`): sets `this.key` to
   * the next key's id (see `gap`) and returns the index of its value, or past the closing `}`,
   * or -1. The gap `gaps` predicts is confirmed where it stands; any other is read.
   */
  private nextKey(
    buf: Uint8Array,
    view: DataView,
    i: number,
    end: number,
    gaps: KeyGaps,
    state: number,
    context: number,
  ): number {
    // After a key with no id (-1: more keys than get one), there is nothing to predict.
    const slot = state < 0 ? -1 : state * gapContexts + context;
    if (slot >= 0 && gaps.matches(view, i, end, slot)) {
      this.key = gaps.nextKey[slot]!;
      return i + gaps.lengthOf(slot);
    }
    return this.gap(buf, i, end, gaps, state === objectStart, slot);
  }

  /**
   * Reads the gap at `buf[i]` that `gaps` did not predict: the object's `{` (`first`) or what
   * follows a value, up to the next value or past the closing `}`. Sets `this.key` to the key's
   * id (-1 when it has none: `this.keyKind` then says what it is) or objectEnd, keeps the gap as
   * the prediction for `slot` and returns the index of the value (past the `}`), or -1.
   */
  private gap(
    buf: Uint8Array,
    i: number,
    end: number,
    gaps: KeyGaps,
    first: boolean,
    slot: number,
  ): number {
    const from = i;
    i = skipSpace(buf, first ? i + 1 : i, end);
    if (i >= end) {
      return -1;
    }
    let c = buf[i]!;
    if (c === RBRACE) {
      this.key = objectEnd;
      gaps.learn(slot, buf, from, i + 1, objectEnd);
      return i + 1;
    }
    if (!first) {
      if (c !== COMMA) {
        return -1;
      }
      i = skipSpace(buf, i + 1, end);
      c = buf[i]!;
    }
    if (i >= end || c !== QUOTE) {
      return -1;
    }
    const keyStart = i + 1;
    i = plainEnd(buf, keyStart, end);
    if (i < 0) {
      return -1;
    }
    const id = gaps.idOf(buf, keyStart, i - keyStart);
    this.key = id;
    if (id < 0) {
      this.keyKind = gaps.classify(buf, keyStart, i - keyStart);
    }
    i = skipSpace(buf, i + 1, end);
    if (i >= end || buf[i] !== COLON) {
      return -1;
    }
    i = skipSpace(buf, i + 1, end);
    if (i >= end) {
      return -1;
    }
    gaps.learn(id < 0 ? -1 : slot, buf, from, i, id);
    return i;
  }

  /** The context of an event's `args` predictions: one for each of its first 15 categories. */
  private catContext(cat: string | undefined): number {
    if (cat === undefined) {
      return 0;
    }
    if (cat === this.lastCat) {
      return this.lastCatContext;
    }
    let k = this.cats.indexOf(cat);
    if (k < 0 && this.cats.length < gapContexts - 1) {
      k = this.cats.push(cat) - 1;
    }
    this.lastCat = cat;
    this.lastCatContext = k + 1;
    return k + 1;
  }
}
