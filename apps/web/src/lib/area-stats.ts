import type { Trace } from '@streamscope/trace';
import { opKindName } from '@streamscope/trace';

/** One row of the area-selection table: ops of one kind and name inside the area. */
export interface AreaStatRow {
  readonly kind: string;
  readonly name: string;
  readonly count: number;
  readonly sumNs: number;
  readonly avgNs: number;
  readonly minNs: number;
  readonly maxNs: number;
}

/**
 * Aggregates ops that overlap [startNs, endNs] on the given tracks by (kind, name). Durations are
 * the ops' whole durations, not clipped to the area (as Perfetto's slice aggregation counts).
 * Rows are sorted by total time, largest first.
 */
export function areaStats(
  trace: Trace,
  startNs: number,
  endNs: number,
  tracks: readonly number[],
): AreaStatRow[] {
  const ops = trace.ops.columns();
  const groups = new Map<
    number,
    { kind: number; nameId: number; count: number; sum: number; min: number; max: number }
  >();
  for (const track of tracks) {
    const inWindow = trace.ops.trackOpsInWindow(track, startNs, endNs);
    for (let k = 0; k < inWindow.length; k++) {
      const i = inWindow[k]!;
      if (i >= ops.count) {
        continue;
      }
      const kind = ops.kind[i]!;
      const nameId = ops.nameId[i]!;
      // kind < 256, so kind + 256 * nameId is a unique key below 2^41.
      const key = kind + 256 * nameId;
      const durNs = ops.endNs[i]! - ops.startNs[i]!;
      const group = groups.get(key);
      if (group === undefined) {
        groups.set(key, { kind, nameId, count: 1, sum: durNs, min: durNs, max: durNs });
      } else {
        group.count++;
        group.sum += durNs;
        group.min = Math.min(group.min, durNs);
        group.max = Math.max(group.max, durNs);
      }
    }
  }
  const rows: AreaStatRow[] = [];
  for (const g of groups.values()) {
    rows.push({
      kind: opKindName(g.kind),
      name: trace.strings.get(g.nameId),
      count: g.count,
      sumNs: g.sum,
      avgNs: g.sum / g.count,
      minNs: g.min,
      maxNs: g.max,
    });
  }
  return rows.sort((a, b) => b.sumNs - a.sumNs || a.name.localeCompare(b.name));
}
