import type { LaunchTable } from '@streamscope/trace';
import { MemKind, OpKind, noRef, packMemKinds } from '@streamscope/trace';

// What a generic Chrome trace event's name and XLA's details strings say about a GPU op: its
// kind, a copy's size and memory kinds, a kernel's launch configuration.

// XLA's kernel_details, e.g. "regs:168 static_shared:0 dynamic_shared:231424 grid:64,2,1
// block:384,1,1 occ_pct:100" (numbers of up to 9 digits: the launch table's are 32-bit).
const gridPattern = /(?:^|\s)grid:(\d{1,9}),(\d{1,9}),(\d{1,9})(?:\s|$)/;
const blockPattern = /(?:^|\s)block:(\d{1,9}),(\d{1,9}),(\d{1,9})(?:\s|$)/;
const staticSharedPattern = /(?:^|\s)static_shared:(\d{1,9})(?:\s|$)/;
const dynamicSharedPattern = /(?:^|\s)dynamic_shared:(\d{1,9})(?:\s|$)/;
const registersPattern = /(?:^|\s)regs:(\d{1,9})(?:\s|$)/;

const memKindByDetail: Record<string, MemKind> = {
  device: MemKind.Device,
  pinned: MemKind.Pinned,
  pageable: MemKind.Pageable,
  managed: MemKind.Managed,
  array: MemKind.Array,
};

/** The `size:N` of XLA's memcpy_details ("kind_src:device kind_dst:pinned size:4 …"); -1: none. */
export function detailsSize(details: string): number {
  const m = /(?:^|\s)size:(\d{1,15})(?:\s|$)/.exec(details);
  return m === null ? -1 : Number(m[1]);
}

/** The packed memory kinds of memcpy_details' kind_src and kind_dst (Unknown where unsaid). */
export function detailsMemKinds(details: string): number {
  if (details === '') {
    return 0;
  }
  const src = /(?:^|\s)kind_src:(\w+)/.exec(details)?.[1];
  const dst = /(?:^|\s)kind_dst:(\w+)/.exec(details)?.[1];
  return packMemKinds(
    memKindByDetail[src ?? ''] ?? MemKind.Unknown,
    memKindByDetail[dst ?? ''] ?? MemKind.Unknown,
  );
}

/** A GPU event's kind by its name: memsets, copies (direction by name), else kernels. */
export function gpuKindOf(name: string): number {
  // ROCm's tracers (rocprof, RPD) name fills FillBuffer and copies CopyHostToDevice, ….
  if (/memset|^FillBuffer$/i.test(name)) {
    return OpKind.Memset;
  }
  if (!/mem\s*cpy|memcopy|^Copy(?:Host|Device|Peer)To(?:Host|Device|Peer)$/i.test(name)) {
    return OpKind.Kernel;
  }
  if (/HtoD|H2D|host\s*to\s*device/i.test(name)) {
    return OpKind.CopyHtoD;
  }
  if (/DtoH|D2H|device\s*to\s*host/i.test(name)) {
    return OpKind.CopyDtoH;
  }
  if (/PtoP|P2P|peer/i.test(name)) {
    return OpKind.CopyPtoP;
  }
  if (/HtoH|H2H|host\s*to\s*host/i.test(name)) {
    return OpKind.CopyHtoH;
  }
  return OpKind.CopyDtoD;
}

/** The launch configuration XLA's kernel_details states, interned in `launches`; noRef without a grid. */
export function parseLaunch(details: string, launches: LaunchTable): number {
  const grid = gridPattern.exec(details);
  const block = blockPattern.exec(details);
  if (grid === null || block === null) {
    return noRef;
  }
  const field = (pattern: RegExp): number => Number(pattern.exec(details)?.[1] ?? 0);
  return launches.internFields(
    Number(grid[1]),
    Number(grid[2]),
    Number(grid[3]),
    Number(block[1]),
    Number(block[2]),
    Number(block[3]),
    field(staticSharedPattern) + field(dynamicSharedPattern),
    field(registersPattern),
  );
}
