import type { Trace } from '@streamscope/trace';
import { RangeKind } from '@streamscope/trace';
import { StagingColumn } from './staging-columns.ts';
import type { Warnings } from './warnings.ts';

const unended = -1;

/** NVTX-style ranges as importers find them, placed in the trace once lanes and origin are known. */
export class RangeStaging {
  private n = 0;
  private readonly start = new StagingColumn(Float64Array, 256);
  private readonly end = new StagingColumn(Float64Array, 256);
  private readonly lane = new StagingColumn(Uint32Array, 256);
  private readonly name = new StagingColumn(Int32Array, 256);
  private readonly domain = new StagingColumn(Int32Array, 256);
  private readonly kind = new StagingColumn(Uint8Array, 256);

  get count(): number {
    return this.n;
  }

  /** A range on a host lane; `endNs` < 0 when it never ended. */
  add(
    lane: number,
    startNs: number,
    endNs: number,
    nameRef: number,
    domainRef: number,
    kind: number,
  ): void {
    const i = this.n;
    this.start.at(i)[i] = startNs;
    this.end.at(i)[i] = endNs < 0 ? unended : endNs;
    this.lane.at(i)[i] = lane;
    this.name.at(i)[i] = nameRef;
    this.domain.at(i)[i] = domainRef;
    this.kind.at(i)[i] = kind;
    this.n = i + 1;
  }

  earliestNs(): number {
    let min = Infinity;
    for (let i = 0; i < this.n; i++) {
      min = Math.min(min, this.start.data[i]!);
    }
    return min;
  }

  markLanes(used: Uint8Array): void {
    for (let i = 0; i < this.n; i++) {
      used[this.lane.data[i]!] = 1;
    }
  }

  /**
   * Appends the ranges sorted per lane by start, with their nesting depth. Ranges that never
   * ended (no pop, no end record) run to `lastOpEndNs` or the last range end, whichever is later.
   */
  appendTo(
    trace: Trace,
    trackOf: Uint32Array,
    originNs: number,
    lastOpEndNs: number,
    resolveName: (ref: number) => number,
    warnings: Warnings,
  ): void {
    const n = this.n;
    const start = this.start.data;
    const end = this.end.data;
    let lastNs = lastOpEndNs;
    for (let i = 0; i < n; i++) {
      lastNs = Math.max(lastNs, end[i]!);
    }
    let open = 0;
    for (let i = 0; i < n; i++) {
      if (end[i] === unended && this.kind.data[i] !== RangeKind.Mark) {
        end[i] = lastNs;
        open++;
      } else if (end[i] === unended || end[i]! < start[i]!) {
        end[i] = start[i]!;
      }
    }
    if (open > 0) {
      warnings.add(`${open} ranges never ended; drawn to the end of the trace`);
    }
    const lane = this.lane.data;
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort(
      (a, b) => lane[a]! - lane[b]! || start[a]! - start[b]! || end[b]! - end[a]! || a - b,
    );
    // Per lane, a stack of the ends of the enclosing push/pop ranges gives each one its depth.
    const stack: number[] = [];
    let currentLane = -1;
    for (const i of order) {
      if (lane[i] !== currentLane) {
        stack.length = 0;
        currentLane = lane[i]!;
      }
      const kind = this.kind.data[i]! as RangeKind;
      while (stack.length > 0 && stack[stack.length - 1]! <= start[i]!) {
        stack.pop();
      }
      const depth = kind === RangeKind.PushPop ? stack.length : 0;
      if (kind === RangeKind.PushPop) {
        stack.push(end[i]!);
      }
      const domain = this.domain.data[i]!;
      trace.ranges.append({
        startNs: start[i]! - originNs,
        endNs: end[i]! - originNs,
        track: trackOf[lane[i]!]!,
        nameId: resolveName(this.name.data[i]!),
        domainId: domain === 0 ? 0 : resolveName(domain),
        depth,
        kind,
      });
    }
  }
}
