import { OpKind, formatDurationNs, trackLabels } from '@streamscope/trace';
import type { AnalysisContext } from '../context.ts';
import { Engine, engineOfKind, occupiesStream } from '../engines.ts';
import type { IntervalList } from '../intervals.ts';
import { firstEndingAfter, measureWithin } from '../intervals.ts';
import { walkLowerBound } from '../track-walk.ts';
import type { Finding } from '../types.ts';
import type { RuleInput } from './rule-input.ts';
import { finding, nsAndShare } from './rule-input.ts';

/** One hardware copy queue: the engines it serves and the union of their work. */
interface CopyQueue {
  readonly slot: number;
  readonly name: string;
  readonly engines: readonly number[];
  readonly busy: IntervalList;
}

interface Blocked {
  readonly copy: number;
  readonly blocker: number;
  readonly idleNs: number;
  /** Whether one engine serves both directions (else the queue is one direction's). */
  readonly sharedEngine: boolean;
}

/**
 * Copy-engine head-of-line blocking (the C1060 "V1" effect): a copy was issued and ready (its
 * stream idle, its events fired), its engine sat idle, yet it did not start until a copy issued
 * earlier on another stream — itself waiting for its own stream — got to the engine first.
 * Work is dispatched to an engine queue in issue order, so one waiting copy blocks the queue.
 * The saving is the engine idle time while ready copies waited (each idle interval once).
 */
export function copyEngineHolBlockingRule(input: RuleInput): Finding | undefined {
  const { ctx } = input;
  const blocked: Blocked[] = [];
  const idleByInterval = new Map<string, number>();
  ctx.devices.forEach((_, slot) => {
    findBlocked(ctx, slot, copyQueues(ctx, slot), blocked, idleByInterval);
  });
  let savingNs = 0;
  for (const ns of idleByInterval.values()) {
    savingNs += ns;
  }
  if (blocked.length === 0 || savingNs < ctx.options.minSavingNs) {
    return undefined;
  }
  blocked.sort((a, b) => b.idleNs - a.idleNs || a.copy - b.copy);
  const worst = blocked[0]!;
  const { cols, trace } = ctx;
  const label = (op: number): string =>
    `"${trace.strings.get(cols.nameId[op]!)}" on ${trackLabels(trace.tracks)[cols.track[op]!]!}`;
  const ops: number[] = [];
  for (const b of blocked) {
    ops.push(b.copy, b.blocker);
  }
  return finding(
    'copy-engine-hol-blocking',
    'warning',
    'Issue order keeps a copy engine waiting',
    `${blocked.length} cop${blocked.length === 1 ? 'y was' : 'ies were'} ready while the copy engine sat idle, queued behind copies issued earlier that were still waiting for their own streams; the engine idled ${nsAndShare(savingNs, input.metrics.makespanNs)} with ready work. Worst: ${label(worst.copy)} waited ${formatDurationNs(worst.idleNs)} behind ${label(worst.blocker)}. Engines take work in issue order: ${worst.sharedEngine ? 'with one copy engine for both directions, issue all host-to-device copies, then the kernels, then the device-to-host copies (breadth-first), so that no copy waiting for a kernel sits ahead of ready ones' : "with a queue per direction, issue each stream's copies and kernel together (depth-first), so that a device-to-host copy waiting for its kernel does not sit ahead of other streams' ready ones"}; or use a device with hardware queues per stream (Hyper-Q).`,
    [...new Set(ops)],
    savingNs,
    ctx.options.maxFindingOps,
  );
}

/** A device's copy queues, indexed by engine (undefined: not queued in order, e.g. D2D). */
function copyQueues(ctx: AnalysisContext, slot: number): (CopyQueue | undefined)[] {
  const device = ctx.devices[slot]!;
  const byEngine: (CopyQueue | undefined)[] = [];
  const info = ctx.trace.devices.find((d) => d.deviceId === device.deviceId);
  if (info?.copyEngineCount === 1) {
    const engines = [Engine.CopyHtoD, Engine.CopyDtoH, Engine.CopyDtoD, Engine.CopyPtoP];
    const one: CopyQueue = { slot, name: 'copy', engines, busy: device.copies };
    for (const e of engines) {
      byEngine[e] = one;
    }
    return byEngine;
  }
  for (const [e, name] of [
    [Engine.CopyHtoD, 'htod'],
    [Engine.CopyDtoH, 'dtoh'],
  ] as const) {
    byEngine[e] = { slot, name, engines: [e], busy: device.byEngine[e]! };
  }
  return byEngine;
}

function findBlocked(
  ctx: AnalysisContext,
  slot: number,
  queues: readonly (CopyQueue | undefined)[],
  blocked: Blocked[],
  idleByInterval: Map<string, number>,
): void {
  const { cols, walk, window } = ctx;
  const slackNs = ctx.options.dispatchSlackNs;
  for (const track of ctx.tracksOfDevice[slot]!) {
    let streamFreeNs = -Infinity;
    let firedNs = -Infinity;
    for (let p = walk.trackFrom[track]!; p < walk.trackFrom[track + 1]!; p++) {
      const kind = walk.kind[p]!;
      if (kind === OpKind.StreamWait) {
        const record = ctx.recordOfWait(walk.op[p]!);
        if (record >= 0) {
          firedNs = Math.max(firedNs, cols.endNs[record]!);
        }
        continue;
      }
      if (!occupiesStream(kind)) {
        continue;
      }
      const queue = queues[engineOfKind(kind)];
      const apiEndNs = walk.apiEndNs[p]!;
      if (queue !== undefined && !Number.isNaN(apiEndNs)) {
        const readyNs = Math.max(apiEndNs, streamFreeNs, firedNs, window.fromNs);
        const startNs = walk.startNs[p]!;
        if (startNs - readyNs > slackNs) {
          const idleNs = startNs - readyNs - measureWithin(queue.busy, readyNs, startNs);
          if (idleNs > slackNs) {
            checkBlocker(ctx, queue, p, readyNs, blocked, idleByInterval);
          }
        }
      }
      streamFreeNs = Math.max(streamFreeNs, walk.endNs[p]!);
      firedNs = -Infinity;
    }
  }
}

/** Finds the copy that ended the engine's last idle stretch before `op`; blames it if issued first. */
function checkBlocker(
  ctx: AnalysisContext,
  queue: CopyQueue,
  p: number,
  readyNs: number,
  blocked: Blocked[],
  idleByInterval: Map<string, number>,
): void {
  const { walk } = ctx;
  const op = walk.op[p]!;
  const busy = queue.busy;
  const startNs = walk.startNs[p]!;
  // Busy intervals starting in (readyNs, startNs): each begins right after an idle stretch.
  let j = firstEndingAfter(busy, readyNs);
  let lastIdleEnd = -1;
  let idleFromNs = readyNs;
  let idleNs = 0;
  for (; j < busy.count && busy.starts[j]! < startNs; j++) {
    const idleStart = Math.max(readyNs, j > 0 ? busy.ends[j - 1]! : readyNs);
    if (busy.starts[j]! > idleStart) {
      lastIdleEnd = j;
      idleFromNs = idleStart;
      idleNs = busy.starts[j]! - idleStart;
    }
  }
  // The stretch the blocker ended must itself be longer than dispatch takes: an engine pauses
  // that long between back-to-back copies (1.9 µs on the simulated H100), and copies issued
  // breadth-first, each ready, would read as blocked by the one before them.
  if (lastIdleEnd < 0 || idleNs <= ctx.options.dispatchSlackNs) {
    return;
  }
  const blockerStartNs = busy.starts[lastIdleEnd]!;
  const at = positionStartingAt(ctx, queue, blockerStartNs);
  if (at < 0 || walk.op[at] === op) {
    return;
  }
  // Only a copy issued before this one can hold it back in the queue (NaN: unknown, skip).
  if (!(walk.apiStartNs[at]! < walk.apiStartNs[p]!)) {
    return;
  }
  blocked.push({ copy: op, blocker: walk.op[at]!, idleNs, sharedEngine: queue.name === 'copy' });
  const key = `${queue.slot}:${queue.name}:${lastIdleEnd}`;
  idleByInterval.set(key, Math.max(idleByInterval.get(key) ?? 0, blockerStartNs - idleFromNs));
}

/** Walk position of a copy in `queue` starting exactly at `startNs`, or -1. */
function positionStartingAt(ctx: AnalysisContext, queue: CopyQueue, startNs: number): number {
  const { walk } = ctx;
  for (const track of ctx.tracksOfDevice[queue.slot]!) {
    const end = walk.trackFrom[track + 1]!;
    for (
      let p = walkLowerBound(walk, track, startNs);
      p < end && walk.startNs[p] === startNs;
      p++
    ) {
      if (queue.engines.includes(engineOfKind(walk.kind[p]!))) {
        return p;
      }
    }
  }
  return -1;
}
