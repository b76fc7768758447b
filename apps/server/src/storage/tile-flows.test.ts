import { FlowKind, FlowTable } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { buildFlowIndex, flowRefBytes, flowsOfRefs } from './tile-flows.ts';

/** An op's refs, read back as the tiles file reads them (its run of the sorted refs). */
function flowsOf(index: ReturnType<typeof buildFlowIndex>, op: number): unknown[] {
  const first = index.refOps.indexOf(op);
  if (first < 0) {
    return [];
  }
  let end = first;
  while (end < index.refCount && index.refOps[end] === op) {
    end++;
  }
  const bytes = index.refs.subarray(first * flowRefBytes, end * flowRefBytes);
  return flowsOfRefs(bytes, op, 'test');
}

describe('the flow index of a tiles file', () => {
  it('gives each op the flows FlowTable.touching lists, in flow order, a flow to itself once', () => {
    const flows = new FlowTable();
    const opCount = 50;
    let seed = 5;
    for (let f = 0; f < 400; f++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      const from = seed % opCount;
      // Every 7th flow loops back to its own op; op 3 is an end of many.
      const to = f % 7 === 0 ? from : f % 5 === 0 ? 3 : (seed >> 8) % opCount;
      flows.append(from, to, (f % 3) as FlowKind);
    }
    flows.append(49, 49, FlowKind.GraphToNode);
    const index = buildFlowIndex(flows.columns(), opCount);
    const columns = flows.columns();
    expect(Array.from(index.refOps)).toEqual([...index.refOps].sort((a, b) => a - b));
    for (let op = 0; op < opCount; op++) {
      const expected = flows.touching(op).map((f) => ({
        kind: columns.kind[f],
        fromOp: columns.fromOp[f],
        toOp: columns.toOp[f],
      }));
      expect({ op, flows: flowsOf(index, op) }).toEqual({ op, flows: expected });
    }
    expect(flowsOf(index, 3).length).toBeGreaterThan(40);
  });

  it('refuses a ref whose role byte is not one it writes, naming the ref', () => {
    const flows = new FlowTable();
    flows.append(0, 1, FlowKind.ApiToGpu);
    const index = buildFlowIndex(flows.columns(), 2);
    index.refs[5] = 9;
    expect(() => flowsOfRefs(index.refs.subarray(0, flowRefBytes), 0, 'x.tiles')).toThrow(
      'x.tiles: flow ref 0 has role 9',
    );
  });
});
