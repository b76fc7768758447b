import { mkdtemp, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { saveTrace, syntheticTrace } from '@streamscope/trace';
import { ServerWorkers } from './src/workers/server-workers.ts';
import { WorkerPool } from './src/workers/worker-pool.ts';
const hwm = async () => Number(/VmHWM:\s+(\d+)/.exec(await readFile('/proc/self/status', 'utf8'))![1]) / 1024;
const rss = () => Math.round(process.memoryUsage().rss / 1e6);
const dir = await mkdtemp(path.join(tmpdir(), 'rss-'));
const file = path.join(dir, 't.sstrace');
if (process.argv[2] === 'make') { await writeFile('/tmp/big2m.sstrace', saveTrace(syntheticTrace(2_000_000))); process.exit(0); }
console.log('start rss', rss(), 'hwm', await hwm());
const w = new ServerWorkers(new WorkerPool({ size: 1 }));
if (process.env['V'] === '1') await w.validateWorkload({ name: 'x', threads: [{ name: 'm', ops: [] }] });
console.log('worker up rss', rss(), 'hwm', await hwm());
const s = await w.exportChrome({ path: '/tmp/big2m.sstrace', partial: false, opCount: Number(process.argv[2] ?? 2_000_000) });
console.log('loaded rss', rss(), 'hwm', await hwm());
let n = 0; let i = 0;
for await (const c of s) { n += (c as Buffer).length; if (++i % 2000 === 0) console.log('  rss', rss(), 'hwm', await hwm()); }
console.log('done', n, 'rss', rss(), 'hwm', await hwm());
await w.pool.close();
