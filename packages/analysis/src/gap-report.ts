import { OpKind, formatDurationNs, isCopyKind, opKindName, trackLabels } from '@streamscope/trace';
import { sortFloat64 } from './radix-sort.ts';
import type { AnalysisContext } from './context.ts';
import { occupiesStream } from './engines.ts';
import { apiBaseName } from './host-calls.ts';
import { shortKernelName } from './kernel-names.ts';
import type { GapRecords } from './gaps.ts';
import type { Gap, GapCause, GapSummary } from './types.ts';
import { gapCauses } from './types.ts';

/** Counts and totals per cause, and the largest gaps (in start order) with a sentence each. */
export function summarizeGaps(ctx: AnalysisContext, gaps: GapRecords): GapSummary {
  const countByCause = zeroByCause();
  const nsByCause = zeroByCause();
  let totalNs = 0;
  for (let g = 0; g < gaps.count; g++) {
    const cause = gapCauses[gaps.cause[g]!]!;
    const durNs = gaps.toNs[g]! - gaps.fromNs[g]!;
    countByCause[cause]++;
    nsByCause[cause] += durNs;
    totalNs += durNs;
  }
  const picked = largest(gaps, ctx.options.maxListedGaps);
  return {
    count: gaps.count,
    totalNs,
    countByCause,
    nsByCause,
    listed: picked.map((g) => gapAt(ctx, gaps, g)),
    truncated: picked.length < gaps.count,
  };
}

function zeroByCause(): Record<GapCause, number> {
  return Object.fromEntries(gapCauses.map((c) => [c, 0])) as Record<GapCause, number>;
}

/** Indices of the `limit` longest gaps, in start order (a threshold from one native sort). */
function largest(gaps: GapRecords, limit: number): number[] {
  const n = gaps.count;
  const picked: number[] = [];
  if (n === 0 || limit <= 0) {
    return picked;
  }
  const durations = new Float64Array(n);
  for (let g = 0; g < n; g++) {
    durations[g] = gaps.toNs[g]! - gaps.fromNs[g]!;
  }
  const sorted = sortFloat64(durations.slice());
  const threshold = sorted[Math.max(0, n - limit)]!;
  // Gaps strictly above the threshold first, then ties up to the limit.
  let above = 0;
  for (let g = 0; g < n; g++) {
    if (durations[g]! > threshold) {
      above++;
    }
  }
  let tiesLeft = Math.min(limit, n) - above;
  for (let g = 0; g < n; g++) {
    if (durations[g]! > threshold) {
      picked.push(g);
    } else if (durations[g] === threshold && tiesLeft > 0) {
      picked.push(g);
      tiesLeft--;
    }
  }
  return picked.sort((a, b) => gaps.fromNs[a]! - gaps.fromNs[b]! || a - b);
}

/** One gap as JSON, with its explanation. */
function gapAt(ctx: AnalysisContext, gaps: GapRecords, g: number): Gap {
  const track = gaps.track[g]!;
  const fromNs = gaps.fromNs[g]!;
  const toNs = gaps.toNs[g]!;
  const cause = gapCauses[gaps.cause[g]!]!;
  const afterOp = gaps.afterOp[g]!;
  const causeOp = gaps.causeOp[g]!;
  const causeRange = gaps.causeRange[g]!;
  return {
    track,
    deviceId: ctx.devices[gaps.deviceSlot[g]!]?.deviceId ?? -1,
    fromNs,
    toNs,
    durNs: toNs - fromNs,
    cause,
    beforeOp: gaps.beforeOp[g]!,
    afterOp,
    causeOp,
    causeRange,
    causeNs: gaps.causeNs[g]!,
    detail: explainGap(ctx, track, toNs - fromNs, cause, afterOp, causeOp, causeRange),
  };
}

/** A sentence with the trace's names and numbers, e.g. "Stream 14 idle 1.2 ms: waited on …". */
export function explainGap(
  ctx: AnalysisContext,
  track: number,
  durNs: number,
  cause: GapCause,
  afterOp: number,
  causeOp: number,
  causeRange = -1,
): string {
  const lead = `${track >= 0 ? trackLabels(ctx.trace.tracks)[track]! : 'GPU'} idle ${formatDurationNs(durNs)}`;
  const next = opLabel(ctx, afterOp);
  const by = causeOp >= 0 ? opLabel(ctx, causeOp) : '';
  const where = causeOp >= 0 ? trackOf(ctx, causeOp) : '';
  switch (cause) {
    case 'event-wait':
      return `${lead}: ${next} waited on an event recorded on ${where}${afterWork(ctx, causeOp)}.`;
    case 'legacy-default-stream':
      return `${lead}: ${next} was held by the legacy default stream's implicit synchronization until ${by} on ${where} finished.`;
    case 'engine-busy':
      return causeOp >= 0
        ? `${lead}: ${next} waited for its engine, busy with ${by} on ${where}.`
        : `${lead}: ${next} waited for its engine, busy with another stream's work.`;
    case 'host-sync':
      return `${lead}: the host (${where}) was blocked in ${by} before it issued ${next}.`;
    case 'sync-copy':
      return `${lead}: the host (${where}) was blocked in ${by}, a synchronous or pageable transfer, before it issued ${next}.`;
    case 'alloc-sync':
      return `${lead}: the host (${where}) was in ${by}, which synchronizes the device, before it issued ${next}.`;
    case 'host-busy':
      return causeRange >= 0
        ? `${lead}: the host issued ${next} late (host busy in ${rangeName(ctx, causeRange)}, not blocked by CUDA).`
        : `${lead}: the host issued ${next} late (busy${by === '' ? '' : ` in ${by}`}, not blocked by CUDA).`;
    case 'launch-latency':
      return `${lead}: ${next} was issued in time; the gap is launch latency.`;
    case 'unknown':
      return `${lead}: cause unknown; nothing recorded (host call, event, engine) held ${next}.`;
  }
}

function opLabel(ctx: AnalysisContext, op: number): string {
  if (op < 0) {
    return 'the next op';
  }
  const { cols } = ctx;
  const name = ctx.trace.strings.get(cols.nameId[op]!);
  const kind = cols.kind[op]!;
  if (kind === OpKind.Kernel) {
    // Prose carries a C++ kernel's short name; the op's details have the whole signature.
    return name === '' ? 'kernel' : `kernel "${shortKernelName(name)}"`;
  }
  if (kind === OpKind.ApiCall && name !== '') {
    // A CUDA call by the name its API has ("cudaStreamSynchronize", not nsys's _v3020).
    return apiBaseName(name);
  }
  const what = isCopyKind(kind) ? 'copy' : opKindName(kind);
  return name === '' ? what : `${what} "${name}"`;
}

function rangeName(ctx: AnalysisContext, range: number): string {
  return ctx.trace.strings.get(ctx.trace.ranges.columns().nameId[range]!);
}

function trackOf(ctx: AnalysisContext, op: number): string {
  return trackLabels(ctx.trace.tracks)[ctx.cols.track[op]!] ?? '?';
}

/** ", after kernel "x"": the work op the record followed on its stream, when there is one. */
function afterWork(ctx: AnalysisContext, record: number): string {
  const { cols } = ctx;
  const order = ctx.trace.ops.trackOrder(cols.track[record]!);
  const recordStartNs = cols.startNs[record]!;
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cols.startNs[order[mid]!]! <= recordStartNs) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  for (let k = lo - 1; k >= 0 && k >= lo - 256; k--) {
    const op = order[k]!;
    if (occupiesStream(cols.kind[op]!)) {
      return ` after ${opLabel(ctx, op)}`;
    }
  }
  return '';
}
