import { OpKind, formatDurationNs, trackLabel } from '@streamscope/trace';
import type { AnalysisContext } from '../context.ts';
import { Engine, occupiesStream } from '../engines.ts';
import type { IntervalList } from '../intervals.ts';
import { firstEndingAfter, measureWithin } from '../intervals.ts';
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
  for (const queue of copyQueues(ctx)) {
    findBlocked(ctx, queue, blocked, idleByInterval);
  }
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
    `"${trace.strings.get(cols.nameId[op]!)}" on ${trackLabel(trace.tracks[cols.track[op]!]!)}`;
  const ops: number[] = [];
  for (const b of blocked) {
    ops.push(b.copy, b.blocker);
  }
  return finding(
    'copy-engine-hol-blocking',
    'warning',
    'Issue order keeps a copy engine waiting',
    `${blocked.length} cop${blocked.length === 1 ? 'y was' : 'ies were'} ready while the copy engine sat idle, queued behind copies issued earlier that were still waiting for their own streams; the engine idled ${nsAndShare(savingNs, input.metrics.makespanNs)} with ready work. Worst: ${label(worst.copy)} waited ${formatDurationNs(worst.idleNs)} behind ${label(worst.blocker)}. Engines take work in issue order: issue copies whose inputs are ready first (all host-to-device copies, then kernels, then device-to-host copies), or use a device with more copy engines and hardware queues.`,
    [...new Set(ops)],
    savingNs,
    ctx.options.maxFindingOps,
  );
}

function copyQueues(ctx: AnalysisContext): CopyQueue[] {
  const queues: CopyQueue[] = [];
  ctx.devices.forEach((device, slot) => {
    const info = ctx.trace.devices.find((d) => d.deviceId === device.deviceId);
    if (info?.copyEngineCount === 1) {
      queues.push({
        slot,
        name: 'copy',
        engines: [Engine.CopyHtoD, Engine.CopyDtoH, Engine.CopyDtoD, Engine.CopyPtoP],
        busy: device.copies,
      });
      return;
    }
    queues.push({
      slot,
      name: 'htod',
      engines: [Engine.CopyHtoD],
      busy: device.byEngine[Engine.CopyHtoD]!,
    });
    queues.push({
      slot,
      name: 'dtoh',
      engines: [Engine.CopyDtoH],
      busy: device.byEngine[Engine.CopyDtoH]!,
    });
  });
  return queues;
}

function findBlocked(
  ctx: AnalysisContext,
  queue: CopyQueue,
  blocked: Blocked[],
  idleByInterval: Map<string, number>,
): void {
  const { cols, engineOf, apiOf, window } = ctx;
  const slackNs = ctx.options.dispatchSlackNs;
  const inQueue = (op: number): boolean => queue.engines.includes(engineOf[op]!);
  for (const track of ctx.tracksOfDevice[queue.slot]!) {
    const order = ctx.trace.ops.trackOpsInWindow(track, window.fromNs, window.toNs);
    let streamFreeNs = -Infinity;
    let firedNs = -Infinity;
    for (let k = 0; k < order.length; k++) {
      const op = order[k]!;
      const kind = cols.kind[op]!;
      if (kind === OpKind.StreamWait) {
        const record = ctx.recordOfWait[op]!;
        if (record >= 0) {
          firedNs = Math.max(firedNs, cols.endNs[record]!);
        }
        continue;
      }
      if (!occupiesStream(kind)) {
        continue;
      }
      const api = apiOf[op]!;
      if (inQueue(op) && api >= 0) {
        const readyNs = Math.max(cols.endNs[api]!, streamFreeNs, firedNs, window.fromNs);
        const startNs = cols.startNs[op]!;
        if (startNs - readyNs > slackNs) {
          const idleNs = startNs - readyNs - measureWithin(queue.busy, readyNs, startNs);
          if (idleNs > slackNs) {
            checkBlocker(ctx, queue, op, readyNs, inQueue, blocked, idleByInterval);
          }
        }
      }
      streamFreeNs = Math.max(streamFreeNs, cols.endNs[op]!);
      firedNs = -Infinity;
    }
  }
}

/** Finds the copy that ended the engine's last idle stretch before `op`; blames it if issued first. */
function checkBlocker(
  ctx: AnalysisContext,
  queue: CopyQueue,
  op: number,
  readyNs: number,
  inQueue: (op: number) => boolean,
  blocked: Blocked[],
  idleByInterval: Map<string, number>,
): void {
  const { cols, apiOf } = ctx;
  const busy = queue.busy;
  const startNs = cols.startNs[op]!;
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
  if (lastIdleEnd < 0) {
    return;
  }
  const blockerStartNs = busy.starts[lastIdleEnd]!;
  const blocker = opStartingAt(ctx, queue.slot, blockerStartNs, inQueue);
  if (blocker < 0 || blocker === op) {
    return;
  }
  const apiBlocker = apiOf[blocker]!;
  const apiOp = apiOf[op]!;
  if (apiBlocker < 0 || cols.startNs[apiBlocker]! >= cols.startNs[apiOp]!) {
    return;
  }
  blocked.push({ copy: op, blocker, idleNs });
  const key = `${queue.slot}:${queue.name}:${lastIdleEnd}`;
  idleByInterval.set(key, Math.max(idleByInterval.get(key) ?? 0, blockerStartNs - idleFromNs));
}

function opStartingAt(
  ctx: AnalysisContext,
  slot: number,
  startNs: number,
  inQueue: (op: number) => boolean,
): number {
  const { cols } = ctx;
  for (const track of ctx.tracksOfDevice[slot]!) {
    const order = ctx.trace.ops.trackOpsInWindow(track, startNs, startNs);
    for (let k = 0; k < order.length; k++) {
      const op = order[k]!;
      if (cols.startNs[op] === startNs && inQueue(op)) {
        return op;
      }
    }
  }
  return -1;
}
