/** What an op is. Stored as one byte per op in `OpTable.kind`. Values are part of the codec: never renumber. */
export const OpKind = {
  Kernel: 0,
  CopyHtoD: 1,
  CopyDtoH: 2,
  CopyDtoD: 3,
  CopyPtoP: 4,
  CopyHtoH: 5,
  Memset: 6,
  EventRecord: 7,
  StreamWait: 8,
  StreamSync: 9,
  EventSync: 10,
  DeviceSync: 11,
  HostFunc: 12,
  GraphLaunch: 13,
  Alloc: 14,
  Free: 15,
  ApiCall: 16,
  HostWork: 17,
} as const;
export type OpKind = (typeof OpKind)[keyof typeof OpKind];

export const opKindCount = 18;

const opKindNames: readonly string[] = [
  'kernel',
  'copy-htod',
  'copy-dtoh',
  'copy-dtod',
  'copy-ptop',
  'copy-htoh',
  'memset',
  'event-record',
  'stream-wait',
  'stream-sync',
  'event-sync',
  'device-sync',
  'host-func',
  'graph-launch',
  'alloc',
  'free',
  'api-call',
  'host-work',
];

/** Stable kebab-case name of a kind, used in JSON, the CLI and the UI. */
export function opKindName(kind: number): string {
  const name = opKindNames[kind];
  if (name === undefined) {
    throw new RangeError(`unknown op kind ${kind}`);
  }
  return name;
}

export function opKindFromName(name: string): OpKind | undefined {
  const index = opKindNames.indexOf(name);
  return index < 0 ? undefined : (index as OpKind);
}

export function isValidOpKind(kind: number): kind is OpKind {
  return Number.isInteger(kind) && kind >= 0 && kind < opKindCount;
}

export function isCopyKind(kind: number): boolean {
  return kind >= OpKind.CopyHtoD && kind <= OpKind.CopyHtoH;
}

/** Synchronization ops: the stream or host waits rather than works. */
export function isSyncKind(kind: number): boolean {
  return (
    kind === OpKind.StreamWait ||
    kind === OpKind.StreamSync ||
    kind === OpKind.EventSync ||
    kind === OpKind.DeviceSync
  );
}

/** Where a copy's bytes live. Packed two to a byte in `OpTable.memKinds`: source low nibble, destination high. */
export const MemKind = {
  Unknown: 0,
  Pageable: 1,
  Pinned: 2,
  Device: 3,
  Array: 4,
  Managed: 5,
  DeviceStatic: 6,
  ManagedStatic: 7,
} as const;
export type MemKind = (typeof MemKind)[keyof typeof MemKind];

const memKindNames: readonly string[] = [
  'unknown',
  'pageable',
  'pinned',
  'device',
  'array',
  'managed',
  'device-static',
  'managed-static',
];

export function memKindName(kind: number): string {
  return memKindNames[kind] ?? 'unknown';
}

export function packMemKinds(src: MemKind, dst: MemKind): number {
  return (src & 0x0f) | ((dst & 0x0f) << 4);
}

export function srcMemKind(packed: number): MemKind {
  return (packed & 0x0f) as MemKind;
}

export function dstMemKind(packed: number): MemKind {
  return ((packed >> 4) & 0x0f) as MemKind;
}

/** Bits of `OpTable.flags`. */
export const OpFlag = {
  /** Issued by a synchronous API (cudaMemcpy, cudaMemset): the host blocked on it. */
  Sync: 1,
  /** Ran as a node of a CUDA graph launch. */
  InGraph: 2,
  /** Timed with a cudaEvent pair instead of CUPTI: coarser, and it perturbs the stream. */
  EventTimed: 4,
  /** The end was not recorded (run cancelled, trace truncated); the end is where recording stopped. */
  Incomplete: 8,
  /** Came from an import with no matching counterpart (API without GPU op or the reverse). */
  Orphan: 16,
  /** A copy or memset whose size the source did not record: its `bytes` is 0 and means unknown. */
  BytesUnknown: 32,
} as const;
