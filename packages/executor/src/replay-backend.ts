import { performance } from 'node:perf_hooks';
import type { FlowKind, OpInput, RangeKind } from '@streamscope/trace';
import { Trace } from '@streamscope/trace';
import type { Backend, BackendStatus, RunHandle, RunRequest } from './backend.ts';
import { LiveRun } from './live-run.ts';
import { replaySourceOf, skeletonOf } from './replay-source.ts';

const tickMs = 16;
const fastChunk = 50_000;

/**
 * Replays a stored trace as if it were running: ops appear when their end time is reached
 * (`realtime`, measured from the first op's start) or as fast as possible (`fast`), in end-time
 * order, with flows and ranges once everything they link has appeared.
 */
export class ReplayBackend implements Backend {
  readonly name = 'replay' as const;

  status(): Promise<BackendStatus> {
    return Promise.resolve({ name: 'replay', available: true, targets: [] });
  }

  start(request: RunRequest): RunHandle {
    const source = request.replayOf;
    if (source === undefined) {
      throw new RangeError('the replay backend needs a stored trace (replayOf)');
    }
    const replay = source instanceof Trace ? replaySourceOf(source) : source;
    const trace = skeletonOf(replay);
    const run = new LiveRun(trace);
    const { ops, flows, ranges, opOrder: order, flowOrder, rangeOrder, firstStartNs } = replay;
    const newIndex = new Int32Array(ops.count).fill(-1);
    let nextOp = 0;
    let nextFlow = 0;
    let nextRange = 0;
    const input: OpInput = { startNs: 0, endNs: 0, track: 0, kind: 0, nameId: 0 };
    const t0 = performance.now();
    const slowdown = request.slowdown ?? 1;
    let timer: NodeJS.Timeout | undefined;

    const step = (): void => {
      const limitNs =
        request.pace === 'fast'
          ? Number.POSITIVE_INFINITY
          : firstStartNs + ((performance.now() - t0) * 1e6) / slowdown;
      const budget = request.pace === 'fast' ? fastChunk : Number.POSITIVE_INFINITY;
      let added = 0;
      while (nextOp < order.length && ops.endNs[order[nextOp]!]! <= limitNs && added < budget) {
        const i = order[nextOp++]!;
        input.startNs = ops.startNs[i]!;
        input.endNs = ops.endNs[i]!;
        input.track = ops.track[i]!;
        input.kind = ops.kind[i]!;
        input.nameId = ops.nameId[i]!;
        input.bytes = ops.bytes[i]!;
        input.memKinds = ops.memKinds[i]!;
        input.correlationId = ops.correlationId[i]!;
        input.refId = ops.refId[i]!;
        input.flags = ops.flags[i]!;
        newIndex[i] = trace.addOp(input);
        added++;
      }
      while (nextFlow < flowOrder.length) {
        const f = flowOrder[nextFlow]!;
        const from = newIndex[flows.fromOp[f]!]!;
        const to = newIndex[flows.toOp[f]!]!;
        if (from < 0 || to < 0) {
          break;
        }
        trace.flows.append(from, to, flows.kind[f]! as FlowKind);
        nextFlow++;
      }
      while (nextRange < rangeOrder.length && ranges.endNs[rangeOrder[nextRange]!]! <= limitNs) {
        const r = rangeOrder[nextRange++]!;
        trace.ranges.append({
          startNs: ranges.startNs[r]!,
          endNs: ranges.endNs[r]!,
          track: ranges.track[r]!,
          nameId: ranges.nameId[r]!,
          domainId: ranges.domainId[r]!,
          depth: ranges.depth[r]!,
          kind: ranges.kind[r]! as RangeKind,
        });
      }
      if (added > 0) {
        trace.version++;
        run.grew();
      }
      if (nextOp >= order.length && nextRange >= rangeOrder.length) {
        clearTimeout(watchdog);
        run.finish({ status: 'finished' });
        return;
      }
      timer = setTimeout(step, request.pace === 'fast' ? 0 : tickMs);
    };
    const watchdog = setTimeout(() => {
      clearTimeout(timer);
      run.finish({ status: 'failed', reason: `time limit of ${request.timeLimitMs} ms exceeded` });
    }, request.timeLimitMs);
    run.setCancel(() => {
      clearTimeout(timer);
      clearTimeout(watchdog);
      run.finish({ status: 'cancelled' });
    });
    timer = setTimeout(step, 0);
    return run;
  }
}
