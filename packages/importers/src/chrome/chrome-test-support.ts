import type { Trace } from '@streamscope/trace';
import { FlowKind, opKindName, trackLabel } from '@streamscope/trace';
import { importTrace } from '../import-trace.ts';

// What the Chrome importer's tests read traces with.

export function importText(text: string, fileName = 'trace.json'): ReturnType<typeof importTrace> {
  return importTrace(new TextEncoder().encode(text), { fileName });
}

/** Every op as "track label|kind|name|startNs+durNs", in op order. */
export function opLines(trace: Trace): string[] {
  const ops = trace.ops.columns();
  const lines: string[] = [];
  for (let i = 0; i < ops.count; i++) {
    const track = trace.tracks[ops.track[i]!]!;
    lines.push(
      `${trackLabel(track)}|${opKindName(ops.kind[i]!)}|${trace.name(ops.nameId[i]!)}|${ops.startNs[i]}+${ops.endNs[i]! - ops.startNs[i]!}`,
    );
  }
  return lines;
}

export function opNamed(trace: Trace, name: string, kind?: number): number {
  const ops = trace.ops.columns();
  for (let i = 0; i < ops.count; i++) {
    if (trace.name(ops.nameId[i]!) === name && (kind === undefined || ops.kind[i] === kind)) {
      return i;
    }
  }
  throw new Error(`no op named ${name}`);
}

export function apiToGpu(trace: Trace): [number, number][] {
  const flows = trace.flows.columns();
  const out: [number, number][] = [];
  for (let i = 0; i < flows.count; i++) {
    if (flows.kind[i] === FlowKind.ApiToGpu) {
      out.push([flows.fromOp[i]!, flows.toOp[i]!]);
    }
  }
  return out;
}

/** Every range as "name start+dur" in µs, in the trace's order. */
export function rangeLines(trace: Trace): string[] {
  const r = trace.ranges.columns();
  return Array.from(
    { length: r.count },
    (_, i) =>
      `${trace.name(r.nameId[i]!)} ${r.startNs[i]! / 1000}+${(r.endNs[i]! - r.startNs[i]!) / 1000}`,
  );
}
