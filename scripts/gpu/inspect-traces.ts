// Prints the ops of stored traces, in start order, for a quick look at a device run:
//   pnpm tsx scripts/gpu/inspect-traces.ts DIR [NAME_FILTER] [MAX_OPS]
import process from 'node:process';
import { readFileSync, readdirSync } from 'node:fs';
import { loadTrace, opKindName } from '@streamscope/trace';
const dir = process.argv[2]!;
for (const f of readdirSync(dir).sort()) {
  if (process.argv[3] !== undefined && !f.includes(process.argv[3])) {
    continue;
  }
  const t = loadTrace(readFileSync(`${dir}/${f}`));
  const c = t.ops.columns();
  console.log(
    `== ${f}: ${c.count} ops, ${t.flows.count} flows, ${t.ranges.count} ranges, timing ${t.meta.timingMethod}, warnings ${JSON.stringify(t.meta.warnings)}`,
  );
  const lim = Number(process.argv[4] ?? 12);
  const idx = Array.from({ length: c.count }, (_, i) => i).sort(
    (a, b) => c.startNs[a]! - c.startNs[b]!,
  );
  for (const i of idx.slice(0, lim)) {
    console.log(
      `  ${t.tracks[c.track[i]!]!.name.padEnd(22)} ${opKindName(c.kind[i]!).padEnd(13)} ${(c.startNs[i]! / 1000).toFixed(1).padStart(9)}us dur ${((c.endNs[i]! - c.startNs[i]!) / 1000).toFixed(2).padStart(9)}us ${t.strings.get(c.nameId[i]!)} bytes=${c.bytes[i]} flags=${c.flags[i]} corr=${c.correlationId[i]}`,
    );
  }
}
