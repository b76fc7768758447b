import { readFileSync } from 'node:fs';
import { OpKind, loadTrace } from '@streamscope/trace';
const t = loadTrace(new Uint8Array(readFileSync(process.argv[2]!)));
const o = t.ops.columns();
const c = new Map<string, number>();
for (let i = 0; i < o.count; i++) if (o.kind[i] === OpKind.ApiCall) { const n = t.name(o.nameId[i]!); c.set(n, (c.get(n) ?? 0) + 1); }
console.log([...c].sort((a, b) => b[1] - a[1]).slice(0, 25));
console.log('tracks', t.tracks.map((x) => `${x.kind}:${x.name}:${x.kind === 'host-thread' ? x.tid : x.streamId}:${x.kind === 'gpu-stream' ? x.streamType : ''}`));
console.log('devices', JSON.stringify(t.devices), 'warnings', t.meta.warnings, 'flows', t.flows.count, 'ranges', t.ranges.count, 'launches', t.launches.count);
