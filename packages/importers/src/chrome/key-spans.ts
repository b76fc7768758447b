import { sameWords } from '../io/json-bytes.ts';
import { keepShape } from '../shape-keeper.ts';
import type { ChromeEvent, IdValue } from './chrome-event.ts';
import { gapContexts, objectStart } from './key-gaps.ts';

/** Spans kept for each state and context: events of a few kinds and threads take turns. */
export const spanWays = 4;
/** Spans longer than this are not kept. */
const maxSpanBytes = 64;
const slotCount = (objectStart + 1) * gapContexts;

/**
 * Runs of an event's keys whose values repeat from one event to the next, learned as they are
 * read: in `{"ph":"X","cat":"cpu_op","name":…,"pid":853,"tid":891,"ts":…` the bytes from the `{`
 * up to the name's value, and from the name's end up to the time's, are the same for thousands
 * of events in a row. A span is the bytes from the end of one value the scanner must read
 * (or the `{`) to the start of the next, with the values of the keys it passes over (`ph`,
 * `cat`, `pid`, `tid`: the ones whose values the scanner keeps and that repeat); where those
 * bytes stand again after the same key in the same context, the scanner takes the values and
 * the next key without reading them. A few spans are kept per state and context (round robin),
 * so CPU ops and runtime calls taking turns on one thread, or kernels on a few streams, each keep
 * theirs. Only ever a shortcut: bytes that differ are read key by key and become a span.
 */
export class KeySpans {
  /** Per slot and way (`(state * gapContexts + context) * spanWays + way`): length, 0 = none. */
  readonly length = new Int32Array(slotCount * spanWays);
  /** The key id at the span's end (whose value starts there), or objectEnd. */
  readonly nextKey = new Int32Array(slotCount * spanWays);
  /** The TopKey bits of the keys the span passes over. */
  readonly bits = new Int32Array(slotCount * spanWays);
  readonly ph: (string | undefined)[] = new Array<string | undefined>(slotCount * spanWays);
  readonly cat: (string | undefined)[] = new Array<string | undefined>(slotCount * spanWays);
  readonly pid: IdValue[] = new Array<IdValue>(slotCount * spanWays);
  readonly tid: IdValue[] = new Array<IdValue>(slotCount * spanWays);
  private readonly nextWay = new Uint8Array(slotCount);
  private readonly bytes = new Uint8Array(slotCount * spanWays * maxSpanBytes);
  private readonly view = new DataView(this.bytes.buffer);

  /**
   * The way of `slot` (`state * gapContexts + context`) whose span stands at `view[i]`, as an
   * index into the arrays above, or -1.
   */
  find(view: DataView, i: number, end: number, slot: number): number {
    const first = slot * spanWays;
    for (let w = first; w < first + spanWays; w++) {
      const length = this.length[w]!;
      if (length === 0) {
        return -1; // ways fill in order
      }
      if (i + length <= end && sameWords(view, i, this.view, w * maxSpanBytes, length)) {
        return w;
      }
    }
    return -1;
  }

  /**
   * Keeps `buf[from, to)` as a span after `slot`, ending at key `next`, passing over the keys
   * `bits` (TopKey bits), whose values are `e`'s.
   */
  learn(
    slot: number,
    buf: Uint8Array,
    from: number,
    to: number,
    next: number,
    bits: number,
    e: ChromeEvent,
  ): void {
    const length = to - from;
    if (length > maxSpanBytes) {
      return;
    }
    const way = this.nextWay[slot]!;
    this.nextWay[slot] = way + 1 === spanWays ? 0 : way + 1;
    const w = slot * spanWays + way;
    this.bytes.set(buf.subarray(from, to), w * maxSpanBytes);
    this.length[w] = length;
    this.nextKey[w] = next;
    this.bits[w] = bits;
    this.ph[w] = e.ph;
    this.cat[w] = e.cat;
    this.pid[w] = e.pid;
    this.tid[w] = e.tid;
  }
}

keepShape(new KeySpans());
