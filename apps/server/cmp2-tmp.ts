import { statSync } from 'node:fs';
import { syntheticTrace } from '@streamscope/trace';
import { writeTilePyramid as writeNew } from './src/workers/tile-pyramid.ts';
import { writeTilePyramid as writeOld } from '../../../main/apps/server/src/workers/tile-pyramid.ts';
const n = Number(process.argv[2] ?? 2_000_000);
const trace = syntheticTrace(n, 12);
for (let round = 0; round < 2; round++) {
  for (const [name, write] of [['new', writeNew]] as const) {
    const file = `/tmp/tile7/${name}.tiles`;
    const t0 = performance.now();
    write(trace, file);
    const s = (performance.now() - t0) / 1000;
    console.log(name, s.toFixed(2), 's', (statSync(file).size / n).toFixed(1), 'B/op');
  }
}
