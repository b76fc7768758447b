import { z } from 'zod';

// The workload spec: one zod source for the TypeScript type and the JSON Schema. Values that
// may hold expressions (sizes, durations, counts, indexed names) are checked by the expander,
// which knows the loop variables in scope.
//
// A spec declares devices (default one, "gpu0"), buffers, streams and events (each may be an
// array: `count: 4` declares s[0]..s[3]), then host threads with ops. Built-in streams are
// "legacy" (the legacy default stream, the default) and "per-thread" (the issuing thread's
// per-thread default stream). Example: 64 MiB in 4 chunks over 4 streams, breadth-first:
//
//   { "name": "chunks",
//     "buffers": [{ "name": "h", "kind": "host-pinned", "size": "64MiB" },
//                 { "name": "d", "kind": "device", "size": "64MiB" }],
//     "streams": [{ "name": "s", "count": 4, "type": "non-blocking" }],
//     "threads": [{ "name": "main", "ops": [
//       { "op": "repeat", "count": 4, "ops": [{ "op": "copy", "src": "h", "dst": "d",
//         "srcOffset": "i * 16MiB", "dstOffset": "i * 16MiB", "bytes": "16MiB", "stream": "s[i]" }] },
//       { "op": "repeat", "count": 4, "ops": [{ "op": "kernel", "name": "k{i}", "duration": "2ms",
//         "grid": 264, "block": 1024, "stream": "s[i]" }] },
//       { "op": "deviceSync" } ] }] }
//
// Collectives (NCCL's single-process, multi-device style: one host thread issues the op on one
// stream per member) run over a declared group:
//
//   "groups": [{ "name": "world", "devices": ["gpu0", "gpu1"] }],
//   { "op": "allReduce", "group": "world", "streams": ["c[0]", "c[1]"],
//     "send": ["grad[0]", "grad[1]"], "bytes": "25MiB", "dtype": "float32" }
//
// Point-to-point: { "op": "send", "stream": "c[0]", "buffer": "x[0]", "bytes": "1MiB",
// "peer": "gpu1" } pairs with the matching { "op": "recv", …, "peer": "gpu0" }.

const name = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_.-]*$/,
    'a name is letters, digits, "_", "-" or "." and starts with a letter',
  )
  .max(64);

/** Bytes: a number, `"64MiB"`, or an expression such as `"i * 4MiB"`. */
const size = z
  .union([z.number(), z.string().max(200)])
  .describe('bytes: a number, "64MiB", or an expression such as "i * 4MiB"');
/** ns: a number, `"50us"`, or an expression such as `"(i + 1) * 10us"`. */
const duration = z
  .union([z.number(), z.string().max(200)])
  .describe('nanoseconds: a number, "50us", or an expression such as "(i + 1) * 10us"');
const count = z
  .union([z.number(), z.string().max(200)])
  .describe('a whole number, or an expression over loop variables');
/** A reference: `"s0"`, `"s[i]"` (an element of a declared array) or a built-in stream name. */
const ref = z.string().min(1).max(200);
const dims = z.union([count, z.tuple([count, count, count])]);

const device = z.strictObject({
  name,
  /** Device memory the workload may use; the smaller of this and the limit applies. */
  memory: size.optional(),
});

const buffer = z.strictObject({
  name,
  kind: z.enum(['host-pageable', 'host-pinned', 'device', 'stream-ordered']),
  size,
  /** Device of a device or stream-ordered buffer; the first device when absent. */
  device: name.optional(),
  /** Declares an array `name[0..count-1]`. */
  count: count.optional(),
});

const stream = z.strictObject({
  name,
  type: z.enum(['blocking', 'non-blocking']).default('blocking'),
  /** CUDA priority: lower is more urgent (0 is the default, -1 or below is higher). */
  priority: z.number().int().min(-16).max(16).default(0),
  device: name.optional(),
  count: count.optional(),
});

const event = z.strictObject({ name, count: count.optional() });

/** A communicator's members: distinct declared devices; member i is rank i. */
const group = z.strictObject({
  name,
  devices: z.array(name).min(1).max(64),
});

/** Element types of collectives and point-to-point ops (NCCL's ncclDataType_t). */
const dtype = z
  .enum([
    'int8',
    'uint8',
    'int32',
    'uint32',
    'int64',
    'uint64',
    'float16',
    'bfloat16',
    'float32',
    'float64',
  ])
  .default('float32');

const collectiveFields = {
  /** A declared group. */
  group: ref,
  /** One stream per member, in member order, each on that member's device. */
  streams: z.array(ref).min(1).max(64),
  /** One device buffer per member, in member order. */
  send: z.array(ref).min(1).max(64),
  /** One device buffer per member; in place (recv = send) when absent. */
  recv: z.array(ref).min(1).max(64).optional(),
  /** Offset into every member's send buffer (in place: where the op's region starts). */
  sendOffset: size.optional(),
  /** Offset into every member's recv buffer. */
  recvOffset: size.optional(),
  /**
   * NCCL's count × the dtype's size, per member: what each member sends for allReduce,
   * broadcast and allGather, what each member receives for reduceScatter. allGather's recv
   * and reduceScatter's send hold members × bytes.
   */
  bytes: size.describe(
    "bytes per member: NCCL's count × dtype size (allGather: what each member sends; reduceScatter: what each receives)",
  ),
  dtype,
  /** NCCL's algorithm choice: "auto" lets the backend pick by size (ring or tree). */
  algorithm: z.enum(['auto', 'ring', 'tree']).default('auto'),
};
const reduceOp = z.enum(['sum', 'prod', 'max', 'min', 'avg']).default('sum');

const allReduceOp = z.strictObject({
  op: z.literal('allReduce'),
  ...collectiveFields,
  reduce: reduceOp,
});
const reduceScatterOp = z.strictObject({
  op: z.literal('reduceScatter'),
  ...collectiveFields,
  reduce: reduceOp,
});
const allGatherOp = z.strictObject({ op: z.literal('allGather'), ...collectiveFields });
const broadcastOp = z.strictObject({
  op: z.literal('broadcast'),
  ...collectiveFields,
  /** The member index (rank) whose send buffer every member receives. */
  root: z.number().int().min(0).max(63).default(0),
});

const p2pFields = {
  stream: ref,
  buffer: ref,
  offset: size.optional(),
  bytes: size,
  dtype,
  /** The other device; sends and recvs pair up per (sender, receiver) in issue order. */
  peer: name,
};
const sendOp = z.strictObject({ op: z.literal('send'), ...p2pFields });
const recvOp = z.strictObject({ op: z.literal('recv'), ...p2pFields });

const streamField = ref
  .optional()
  .describe(
    '"legacy" (the legacy default stream; the default), "per-thread", a stream name or "s[i]"',
  );

const copyOp = z.strictObject({
  op: z.literal('copy'),
  src: ref,
  dst: ref,
  /** Bytes to copy; the rest of the source from srcOffset when absent. */
  bytes: size.optional(),
  srcOffset: size.optional(),
  dstOffset: size.optional(),
  /** false: cudaMemcpy on the default stream, host blocks. true: cudaMemcpyAsync. */
  async: z.boolean().default(true),
  stream: streamField,
});

const kernelOp = z.strictObject({
  op: z.literal('kernel'),
  name: z.string().max(120).optional(),
  /** Timed kernel: each block spins for this long. */
  duration: duration.optional(),
  /** Fixed-work kernel: each block runs this many calibrated iterations. */
  iterations: count.optional(),
  grid: dims.optional(),
  block: dims.optional(),
  sharedMem: size.optional(),
  stream: streamField,
});

const memsetOp = z.strictObject({
  op: z.literal('memset'),
  dst: ref,
  offset: size.optional(),
  bytes: size.optional(),
  value: z.number().int().min(0).max(255).default(0),
  async: z.boolean().default(true),
  stream: streamField,
});

const eventRecordOp = z.strictObject({
  op: z.literal('eventRecord'),
  event: ref,
  stream: streamField,
});
const streamWaitOp = z.strictObject({
  op: z.literal('streamWait'),
  event: ref,
  stream: streamField,
});
const eventSyncOp = z.strictObject({ op: z.literal('eventSync'), event: ref });
const streamSyncOp = z.strictObject({ op: z.literal('streamSync'), stream: streamField });
const deviceSyncOp = z.strictObject({ op: z.literal('deviceSync') });
const hostFuncOp = z.strictObject({
  op: z.literal('hostFunc'),
  name: z.string().max(120).optional(),
  duration,
  stream: streamField,
});
const hostWorkOp = z.strictObject({
  op: z.literal('hostWork'),
  name: z.string().max(120).optional(),
  duration,
});
const mallocOp = z.strictObject({
  op: z.literal('malloc'),
  buffer: ref,
  /** true: cudaMallocAsync on `stream` (stream-ordered buffers). false: cudaMalloc / cudaMallocHost. */
  async: z.boolean().default(false),
  stream: streamField,
});
const freeOp = z.strictObject({
  op: z.literal('free'),
  buffer: ref,
  async: z.boolean().default(false),
  stream: streamField,
});
const graphLaunchOp = z.strictObject({
  op: z.literal('graphLaunch'),
  graph: ref,
  count: count.default(1),
  stream: streamField,
});

const graphOp = z.strictObject({
  op: z.literal('graph'),
  name,
  /** The capture stream; every node is captured on it (no branches). Not the legacy stream. */
  stream: ref,
  get ops() {
    return z.array(workloadOpSchema);
  },
});
const repeatOp = z.strictObject({
  op: z.literal('repeat'),
  count,
  /** The loop variable, usable in expressions inside: 0 .. count-1. */
  var: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('i'),
  get ops() {
    return z.array(workloadOpSchema);
  },
});
const rangeOp = z.strictObject({
  op: z.literal('range'),
  name: z.string().min(1).max(120),
  get ops() {
    return z.array(workloadOpSchema);
  },
});

export const workloadOpSchema = z.discriminatedUnion('op', [
  copyOp,
  kernelOp,
  memsetOp,
  eventRecordOp,
  streamWaitOp,
  eventSyncOp,
  streamSyncOp,
  deviceSyncOp,
  hostFuncOp,
  hostWorkOp,
  mallocOp,
  freeOp,
  graphOp,
  graphLaunchOp,
  repeatOp,
  rangeOp,
  allReduceOp,
  reduceScatterOp,
  allGatherOp,
  broadcastOp,
  sendOp,
  recvOp,
]);

const thread = z.strictObject({
  name,
  /** The device this thread's "legacy" and "per-thread" streams belong to. */
  device: name.optional(),
  ops: z.array(workloadOpSchema),
});

/** The zod schema of a workload spec. */
export const workloadSchema = z.strictObject({
  version: z.literal(1).default(1),
  name: z.string().min(1).max(120),
  description: z.string().max(2000).optional(),
  devices: z.array(device).default([{ name: 'gpu0' }]),
  buffers: z.array(buffer).default([]),
  streams: z.array(stream).default([]),
  events: z.array(event).default([]),
  /** Device groups for collectives (one communicator each). */
  groups: z.array(group).default([]),
  threads: z.array(thread).min(1),
});

/** A workload spec after defaults (what `validateWorkload` returns). */
export type Workload = z.output<typeof workloadSchema>;
/** A workload spec as written (defaults optional): what presets and users produce. */
export type WorkloadInput = z.input<typeof workloadSchema>;
export type WorkloadOp = z.output<typeof workloadOpSchema>;
export type WorkloadOpInput = z.input<typeof workloadOpSchema>;
/** Element type of a collective or point-to-point op. */
export type Dtype = z.output<typeof dtype>;
export type ReduceOp = z.output<typeof reduceOp>;

/** JSON Schema (draft 2020-12) of the spec as written, generated from the zod schema. */
export const workloadJsonSchema: Record<string, unknown> = z.toJSONSchema(workloadSchema, {
  io: 'input',
  cycles: 'ref',
});
