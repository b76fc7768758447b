// What an import's worker spends on a big trace's pyramid (for `pnpm bench scale-tiles`): a
// synthetic trace of OPS ops (12 streams and a host thread) is saved to TRACE as a stored trace,
// then its level-of-detail file is written to TILES from the trace in memory, as pyramidAtImport
// does. Prints one JSON line: buildS, tileBytes.
//   node --import tsx apps/server/scripts/tile-build.ts OPS TRACE TILES
import { statSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { saveTrace, syntheticTrace } from '@streamscope/trace';
import { writeTilePyramid } from '../src/workers/tile-pyramid.ts';

const [ops, tracePath, tilesPath] = process.argv.slice(2) as [string, string, string];
const trace = syntheticTrace(Number(ops), 12);
writeFileSync(tracePath, saveTrace(trace));
const t0 = performance.now();
writeTilePyramid(trace, tilesPath);
const buildS = (performance.now() - t0) / 1000;
process.stdout.write(`${JSON.stringify({ buildS, tileBytes: statSync(tilesPath).size })}\n`);
