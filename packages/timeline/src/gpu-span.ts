import type { Trace } from '@streamscope/trace';
import { OpKind, isCopyKind } from '@streamscope/trace';
import type { Viewport } from './viewport.ts';

/** Work a GPU engine does: kernels, copies and memsets (not host calls, waits or markers). */
export function isGpuWorkKind(kind: number): boolean {
  return kind === OpKind.Kernel || kind === OpKind.Memset || isCopyKind(kind);
}

/**
 * From the start of the first GPU op to the end of the last (ns since the origin), or undefined
 * when the trace has none. Host-only time before and after (imports, CPU setup) is left out.
 */
export function gpuActivitySpan(trace: Trace): Viewport | undefined {
  const ops = trace.ops.columns();
  let startNs = Infinity;
  let endNs = -Infinity;
  for (let i = 0; i < ops.count; i++) {
    if (isGpuWorkKind(ops.kind[i]!)) {
      startNs = Math.min(startNs, ops.startNs[i]!);
      endNs = Math.max(endNs, ops.endNs[i]!);
    }
  }
  return startNs <= endNs ? { startNs, endNs } : undefined;
}

/** A window over [startNs, endNs] with 2% of air on each side (1 µs when it is an instant). */
export function fitSpanViewport(span: Viewport): Viewport {
  const spanNs = Math.max(span.endNs - span.startNs, 1000);
  const padNs = spanNs * 0.02;
  const midNs = (span.startNs + span.endNs) / 2;
  return { startNs: midNs - spanNs / 2 - padNs, endNs: midNs + spanNs / 2 + padNs };
}
