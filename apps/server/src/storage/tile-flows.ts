import type { FlowColumns } from '@streamscope/trace';

// The tiles file's flow index (tile-format.ts): per flow end, a ref, sorted by its op (trace
// order) and, within an op, in flow order, as FlowTable.touching lists them; beside the refs, the
// op of each (u32, ascending). One op's flows are then a binary search of those ops and one read
// of its refs, whatever the trace's size; an op without flows costs nothing.

/** u32 the other end's op index, u8 flow kind, u8 role (flowRole), 2 spare. */
export const flowRefBytes = 8;

/** Which end of a flow the op whose ref it is. */
const flowRole = { from: 0, to: 1, both: 2 } as const;

/** One flow as an op's refs give it back. */
export interface FlowRef {
  readonly kind: number;
  readonly fromOp: number;
  readonly toOp: number;
}

export interface FlowIndex {
  /** Per ref, the op it is of: ascending. */
  readonly refOps: Uint32Array;
  /** Ref k is bytes k × flowRefBytes. */
  readonly refs: Uint8Array;
  readonly refCount: number;
}

/**
 * The flow index of a trace of `opCount` ops: a counting sort of the flows' ends by op, stable,
 * so each op's refs keep flow order. Memory: 4 bytes an op while it sorts, 12 per flow end.
 */
export function buildFlowIndex(flows: FlowColumns, opCount: number): FlowIndex {
  const { fromOp, toOp, kind, count } = flows;
  // end[op + 1]: where op's refs end; filled from the back, flows last to first, each op's run
  // ends in flow order, and end[op + 1] is then where its run starts.
  const end = new Uint32Array(opCount + 1);
  for (let f = 0; f < count; f++) {
    end[fromOp[f]! + 1]!++;
    if (toOp[f] !== fromOp[f]) {
      end[toOp[f]! + 1]!++;
    }
  }
  for (let op = 0; op < opCount; op++) {
    end[op + 1]! += end[op]!;
  }
  const refCount = end[opCount]!;
  const refs = new Uint8Array(refCount * flowRefBytes);
  const view = new DataView(refs.buffer);
  const put = (op: number, other: number, k: number, role: number): void => {
    const o = --end[op + 1]! * flowRefBytes;
    view.setUint32(o, other, true);
    refs[o + 4] = k;
    refs[o + 5] = role;
  };
  for (let f = count - 1; f >= 0; f--) {
    const from = fromOp[f]!;
    const to = toOp[f]!;
    if (from === to) {
      put(from, to, kind[f]!, flowRole.both);
    } else {
      put(to, from, kind[f]!, flowRole.to);
      put(from, to, kind[f]!, flowRole.from);
    }
  }
  const refOps = new Uint32Array(refCount);
  for (let op = 0; op < opCount; op++) {
    refOps.fill(op, end[op + 1], op + 1 < opCount ? end[op + 2] : refCount);
  }
  return { refOps, refs, refCount };
}

/** The flows of op `op` from its refs (`bytes`, a whole number of refs), in flow order. */
export function flowsOfRefs(bytes: Uint8Array, op: number, where: string): FlowRef[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found: FlowRef[] = [];
  for (let o = 0; o + flowRefBytes <= bytes.length; o += flowRefBytes) {
    const other = view.getUint32(o, true);
    const kind = bytes[o + 4]!;
    const role = bytes[o + 5]!;
    if (role === flowRole.from) {
      found.push({ kind, fromOp: op, toOp: other });
    } else if (role === flowRole.to) {
      found.push({ kind, fromOp: other, toOp: op });
    } else if (role === flowRole.both) {
      found.push({ kind, fromOp: op, toOp: op });
    } else {
      throw new Error(`${where}: flow ref ${o / flowRefBytes} has role ${role}`);
    }
  }
  return found;
}
