import type { Trace } from '@streamscope/trace';
import { opKindName } from '@streamscope/trace';
import type { PresetValue, WorkloadInput } from '@streamscope/workload';
import { buildPreset, validateWorkload } from '@streamscope/workload';
import type { DeviceProfile } from './profile.ts';
import { simulate } from './simulation.ts';

/** One op of a trace as a plain object (tests only: production code never makes these). */
export interface OpView {
  readonly index: number;
  readonly track: string;
  readonly kind: string;
  readonly name: string;
  readonly startNs: number;
  readonly endNs: number;
  readonly correlationId: number;
  readonly flags: number;
}

export function runSpec(spec: unknown, profile: DeviceProfile): Trace {
  const result = validateWorkload(spec);
  if (!result.ok) {
    throw new Error(JSON.stringify(result.errors));
  }
  return simulate(result.plan, profile);
}

export function runPreset(
  name: string,
  params: Record<string, PresetValue>,
  profile: DeviceProfile,
): Trace {
  return runSpec(buildPreset(name, params), profile);
}

export function opsOf(trace: Trace): OpView[] {
  const c = trace.ops.columns();
  const out: OpView[] = [];
  for (let i = 0; i < c.count; i++) {
    out.push({
      index: i,
      track: trace.tracks[c.track[i]!]!.name,
      kind: opKindName(c.kind[i]!),
      name: trace.name(c.nameId[i]!),
      startNs: c.startNs[i]!,
      endNs: c.endNs[i]!,
      correlationId: c.correlationId[i]!,
      flags: c.flags[i]!,
    });
  }
  return out;
}

export function gpuOps(trace: Trace, kind?: string): OpView[] {
  return opsOf(trace).filter(
    (o) =>
      o.kind !== 'api-call' && o.kind !== 'host-work' && (kind === undefined || o.kind === kind),
  );
}

export function apiOps(trace: Trace, name?: string): OpView[] {
  return opsOf(trace).filter(
    (o) => o.kind === 'api-call' && (name === undefined || o.name === name),
  );
}

/** Time two intervals share, ns. */
export function overlapNs(a: OpView, b: OpView): number {
  return Math.max(0, Math.min(a.endNs, b.endNs) - Math.max(a.startNs, b.startNs));
}

export function makespanNs(trace: Trace): number {
  return trace.ops.maxEndNs;
}

export type { WorkloadInput };
