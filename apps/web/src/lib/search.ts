import type { Trace } from '@streamscope/trace';

/**
 * Op indices whose name contains `query` (case-insensitive), over the whole trace, ordered by
 * start time. Strings are matched once per distinct name, then ops by nameId: O(names + ops).
 */
export function searchOps(trace: Trace, query: string): Uint32Array {
  const needle = query.trim().toLowerCase();
  if (needle === '') {
    return new Uint32Array(0);
  }
  const nameCount = trace.strings.count;
  const nameMatches = new Uint8Array(nameCount);
  let anyName = false;
  for (let id = 0; id < nameCount; id++) {
    if (trace.strings.get(id).toLowerCase().includes(needle)) {
      nameMatches[id] = 1;
      anyName = true;
    }
  }
  if (!anyName) {
    return new Uint32Array(0);
  }
  const ops = trace.ops.columns();
  let found = 0;
  for (let i = 0; i < ops.count; i++) {
    if (nameMatches[ops.nameId[i]!] === 1) {
      found++;
    }
  }
  const result = new Uint32Array(found);
  let k = 0;
  for (let i = 0; i < ops.count; i++) {
    if (nameMatches[ops.nameId[i]!] === 1) {
      result[k++] = i;
    }
  }
  const starts = ops.startNs;
  return result.sort((a, b) => starts[a]! - starts[b]! || a - b);
}
