import type { CmdSlot, CommandStore } from './command-store.ts';
import type { SimStream } from './model.ts';
import type { DeviceProfile } from './profile.ts';

/** How long a kernel's blocks last: timed ones blockNs, fixed-work ones at the unsaturated rate. */
export function blockNsOf(cmd: CmdSlot, c: CommandStore, profile: DeviceProfile): number {
  return c.iterations[cmd]! > 0
    ? c.iterations[cmd]! / profile.workIterationsPerNs
    : c.blockNs[cmd]!;
}

/**
 * Priorities act at block boundaries: of the kernels with blocks on the SMs (`resident`), the
 * lower-priority one with the longest blocks, whose blocks hold the room kernel `cmd` finds
 * full; -1 where there is none, or where the profile leaves priorities to the block slots.
 */
export function preemptedKernel(
  cmd: CmdSlot,
  resident: readonly CmdSlot[],
  host: { readonly cmds: CommandStore; readonly streams: readonly (SimStream | undefined)[] },
  profile: DeviceProfile,
): CmdSlot {
  if (profile.priorityWaitShare <= 0) {
    return -1;
  }
  const c = host.cmds;
  const priority = host.streams[c.stream[cmd]!]!.priority;
  let found = -1;
  for (const r of resident) {
    if (
      host.streams[c.stream[r]!]!.priority > priority &&
      (found < 0 || blockNsOf(r, c, profile) > blockNsOf(found, c, profile))
    ) {
      found = r;
    }
  }
  return found;
}
