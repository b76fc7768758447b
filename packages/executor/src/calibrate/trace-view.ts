import type { Trace } from '@streamscope/trace';
import { MemKind, OpKind, dstMemKind, srcMemKind } from '@streamscope/trace';

/** One op of a benchmark trace (benchmarks are a few hundred ops: plain objects are fine). */
export interface BenchOp {
  readonly kind: number;
  readonly name: string;
  readonly track: string;
  readonly host: boolean;
  readonly startNs: number;
  readonly endNs: number;
  readonly durNs: number;
  readonly bytes: number;
  readonly pageable: boolean;
  readonly correlationId: number;
}

/** A benchmark's trace as ops in start order, with the API call that issued each GPU op. */
export class TraceView {
  readonly ops: readonly BenchOp[];
  private readonly callOf = new Map<number, BenchOp>();

  constructor(trace: Trace) {
    const c = trace.ops.columns();
    const ops: BenchOp[] = [];
    for (let i = 0; i < c.count; i++) {
      const memKinds = c.memKinds[i]!;
      const host = trace.tracks[c.track[i]!]?.kind === 'host-thread';
      ops.push({
        kind: c.kind[i]!,
        name: trace.name(c.nameId[i]!),
        track: trace.tracks[c.track[i]!]?.name ?? '',
        host,
        startNs: c.startNs[i]!,
        endNs: c.endNs[i]!,
        durNs: c.endNs[i]! - c.startNs[i]!,
        bytes: c.bytes[i]!,
        pageable:
          srcMemKind(memKinds) === MemKind.Pageable || dstMemKind(memKinds) === MemKind.Pageable,
        correlationId: c.correlationId[i]!,
      });
    }
    ops.sort((a, b) => a.startNs - b.startNs);
    this.ops = ops;
    for (const op of ops) {
      if (op.host && op.correlationId !== 0) {
        this.callOf.set(op.correlationId, op);
      }
    }
  }

  /** API calls named `name`, in order. */
  calls(name: string): BenchOp[] {
    return this.ops.filter((o) => o.host && o.kind === OpKind.ApiCall && o.name === name);
  }

  /** GPU ops whose name is `name` (or starts with it, for `prefix`), in order. */
  gpu(name: string, prefix = false): BenchOp[] {
    return this.ops.filter((o) => !o.host && (prefix ? o.name.startsWith(name) : o.name === name));
  }

  /** GPU ops of an OpKind, in order. */
  gpuOfKind(kind: number): BenchOp[] {
    return this.ops.filter((o) => !o.host && o.kind === kind);
  }

  /** The API call that issued a GPU op, if the trace links them. */
  callFor(op: BenchOp): BenchOp | undefined {
    return op.correlationId === 0 ? undefined : this.callOf.get(op.correlationId);
  }

  /** Host ops (calls and host work) in order. */
  hostOps(): BenchOp[] {
    return this.ops.filter((o) => o.host);
  }
}

/** The median of a list; NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The mean of a list; NaN when empty. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Least-squares line through (x, y) points: y ≈ intercept + slope × x. */
export function fitLine(points: readonly (readonly [number, number])[]): {
  intercept: number;
  slope: number;
} {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) * (x - mx);
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  return { intercept: my - slope * mx, slope };
}
