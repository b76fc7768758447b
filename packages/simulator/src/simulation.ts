import { Trace } from '@streamscope/trace';
import type { Plan, PlanOp } from '@streamscope/workload';
import { SimCore } from './core.ts';
import type { HostThreadState } from './core.ts';
import { EventType } from './event-heap.ts';
import { HostRunner } from './host-runner.ts';
import { SimStream } from './model.ts';
import { Collectives } from './collectives.ts';
import type { LinkProfile } from './link-model.ts';
import { linkProfiles } from './link-model.ts';
import type { DeviceProfile } from './profile.ts';

/** Thrown when a plan cannot run on a profile (more memory than the device has). */
export class SimulationError extends Error {
  override readonly name = 'SimulationError';
}

/** A run in progress: the trace grows as `step` advances the simulated clock. */
export interface Simulation {
  readonly trace: Trace;
  /**
   * Runs every event up to `untilNs` of simulated time (at most `maxEvents` of them) and
   * returns true once the run is over. Ops enter the trace when they end.
   */
  step(untilNs: number, maxEvents?: number): boolean;
  /** The simulated clock, ns since the trace origin; the end of the run once it is done. */
  readonly nowNs: number;
  readonly done: boolean;
}

export const simulatorVersion = '0.1';
const simPid = 1;
const maxReservedOps = 4_000_000;

/** Sets up a run of `plan` on `profile`; nothing happens until `step`. */
export function createSimulation(plan: Plan, profile: DeviceProfile): Simulation {
  checkMemory(plan, profile);
  const trace = new Trace({
    title: plan.name,
    sourceFormat: 'streamscope-sim',
    producer: `streamscope-sim ${simulatorVersion} (profile ${profile.name})`,
    timingMethod: 'sim',
    originNs: '0',
    profile: profile.name,
  });
  const d = profile.device;
  for (const device of plan.devices) {
    trace.addDevice({
      deviceId: device.id,
      name: d.name,
      smCount: d.smCount,
      copyEngineCount: d.copyEngineCount,
      memoryBytes: d.memoryBytes,
      computeCapability: d.computeCapability,
      priorityRange: d.priorityRange,
    });
  }
  trace.addProcess({ pid: simPid, name: 'streamscope-sim' });
  // Each executed op gives at most an API call and a GPU op: size the columns once instead of
  // doubling them (each doubling copies and, for large runs, provokes a full GC).
  trace.ops.reserve(Math.min(2 * plan.executedOpCount + 16, maxReservedOps));
  const core = new SimCore(plan, profile, trace);
  const runner = new HostRunner(core);
  for (const thread of plan.threads) {
    const track = trace.addTrack({
      kind: 'host-thread',
      name: thread.name,
      pid: simPid,
      tid: thread.id + 1,
    });
    const state: HostThreadState = {
      id: thread.id,
      plan: thread,
      track,
      pc: 0,
      sub: 0,
      blocked: false,
      done: false,
      call: {
        active: false,
        startNs: 0,
        nameId: 0,
        correlationId: 0,
        flags: 0,
        minEndNs: 0,
        afterWaitNs: 0,
        cmd: -1,
        flowFrom: -1,
      },
      waitRemaining: 0,
      apiCalls: 0,
      ranges: [],
    };
    core.threads.push(state);
  }
  addStreams(core, plan, profile, trace);
  for (const t of core.threads) {
    core.heap.push(0, EventType.HostResume, t.id);
  }
  let done = false;
  const sim: Simulation = {
    trace,
    get nowNs() {
      return core.nowNs;
    },
    get done() {
      return done;
    },
    step(untilNs: number, maxEvents = Infinity): boolean {
      runner.untilNs = untilNs;
      let handled = 0;
      while (
        !done &&
        handled < maxEvents &&
        core.heap.size > 0 &&
        core.heap.peekTimeNs() <= untilNs
      ) {
        const event = core.heap;
        event.pop();
        if (event.timeNs > core.nowNs) {
          core.nowNs = event.timeNs;
        }
        if (event.type === EventType.HostResume) {
          runner.run(core.threads[event.target]!);
        } else {
          core.dispatch(event);
          core.settle();
        }
        handled++;
      }
      core.writer.flush();
      if (core.heap.size === 0) {
        done = true;
        const stuck = core.threads.filter((t) => !t.done);
        if (stuck.length > 0) {
          trace.meta = {
            ...trace.meta,
            warnings: [
              ...(trace.meta.warnings ?? []),
              `threads never finished: ${stuck.map((t) => t.plan.name).join(', ')}`,
            ],
          };
        }
      } else if (untilNs !== Infinity && handled < maxEvents) {
        core.nowNs = Math.max(core.nowNs, untilNs);
      }
      return done;
    },
  };
  return sim;
}

/** Runs a plan to the end and returns its trace. */
export function simulate(plan: Plan, profile: DeviceProfile): Trace {
  const sim = createSimulation(plan, profile);
  sim.step(Infinity);
  return sim.trace;
}

/** The profile's link model for a plan with collectives, checked against the plan's devices. */
function linksFor(plan: Plan, profile: DeviceProfile, crossesGpus: boolean): LinkProfile {
  const links = profile.links;
  if (links === undefined && !crossesGpus) {
    return linkProfiles.local; // one-member collectives: NCCL's latency, nothing on a link
  }
  if (links === undefined) {
    throw new SimulationError(
      `the plan runs collectives, but profile "${profile.name}" describes a one-GPU host (no link model): pick h100, h200 or one of their multi-GPU profiles`,
    );
  }
  if (plan.devices.length > links.gpusPerHost) {
    throw new SimulationError(
      `the plan uses ${plan.devices.length} devices, but profile "${profile.name}" has ${links.gpusPerHost} GPUs (${links.fabric})`,
    );
  }
  return links;
}

function checkMemory(plan: Plan, profile: DeviceProfile): void {
  const held = plan.devices.map(() => 0);
  for (const b of plan.buffers) {
    if (b.kind === 'device' || b.kind === 'stream-ordered') {
      held[b.device] = (held[b.device] ?? 0) + b.bytes;
      if (held[b.device]! > profile.device.memoryBytes) {
        throw new SimulationError(
          `buffer "${b.name}": device ${plan.devices[b.device]?.name ?? b.device} would hold ${held[b.device]} bytes, more than the ${profile.device.memoryBytes} of ${profile.device.name}`,
        );
      }
    }
  }
}

/**
 * Tracks for the streams the plan uses, in plan order; per device, the hardware queue of each.
 * Also notes the records that another thread waits for.
 */
function addStreams(core: SimCore, plan: Plan, profile: DeviceProfile, trace: Trace): void {
  // One pass over every op of the plan (a million for large runs): a switch on the kind, and
  // a flag per stream rather than a set.
  const used = new Uint8Array(plan.streams.length);
  let communicates = false;
  let crossesGpus = false;
  const visit = (ops: readonly PlanOp[]): void => {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      switch (op.kind) {
        case 'copy':
        case 'kernel':
        case 'eventRecord':
        case 'memset':
        case 'hostFunc':
        case 'streamSync':
        case 'graphLaunch':
          used[op.stream] = 1;
          break;
        case 'send':
        case 'recv':
          used[op.stream] = 1;
          communicates = true;
          crossesGpus = true;
          break;
        case 'collective':
          for (const m of op.members) {
            used[m.stream] = 1;
          }
          communicates = true;
          crossesGpus ||= op.members.length > 1;
          break;
        case 'streamWait':
          used[op.stream] = 1;
          if (op.afterRecord !== null) {
            core.awaitedRecords.add(op.afterRecord);
          }
          break;
        case 'eventSync':
          if (op.afterRecord !== null) {
            core.awaitedRecords.add(op.afterRecord);
          }
          break;
        case 'malloc':
        case 'free':
          if (op.stream !== null) {
            used[op.stream] = 1;
          }
          break;
        case 'deviceSync':
        case 'hostWork':
        case 'graphCapture':
        case 'rangePush':
        case 'rangePop':
          break;
      }
    }
  };
  for (const t of plan.threads) {
    visit(t.ops);
  }
  for (const g of plan.graphs) {
    visit(g.ops);
  }
  if (communicates) {
    core.collectives = new Collectives(core, linksFor(plan, profile, crossesGpus));
  }
  const [greatest, least] = profile.device.priorityRange;
  const perDevice = plan.devices.map(() => 0);
  core.deviceStreams = plan.devices.map(() => []);
  for (const s of plan.streams) {
    const ordinal = perDevice[s.device]!++;
    if (used[s.id] === 0 && s.type !== 'legacy-default') {
      continue;
    }
    const track =
      used[s.id] === 1
        ? trace.addTrack({
            kind: 'gpu-stream',
            name: s.name,
            pid: 1,
            deviceId: s.device,
            contextId: 1,
            streamId: s.id,
            streamType: s.type,
            priority: s.priority,
          })
        : -1;
    const priority = Math.min(least, Math.max(greatest, s.priority));
    const stream = new SimStream(s, track, s.device, priority, ordinal);
    core.addStream(stream);
    core.deviceStreams[s.device]!.push(stream);
  }
}
