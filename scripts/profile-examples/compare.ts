// `streamscope profile` against Nsight Systems on the same program (separate runs):
//   pnpm exec tsx scripts/profile-examples/compare.ts OURS.sstrace NSYS.stats.json
// (NSYS.stats.json from nsys_stats.py). Checks kernel, copy and memset counts per stream, each
// kernel name's total duration within 5 %, copy bytes per kind, and NVTX ranges by name and
// kind. Prints a report; exits 1 when something disagrees.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import type { Trace } from '@streamscope/trace';
import { OpKind, RangeKind, isCopyKind, loadTrace, opKindName } from '@streamscope/trace';

interface Stats {
  streams: Record<string, { kernel: number; copy: number; memset: number }>;
  kernels: Record<string, { count: number; totalNs: number }>;
  copies: Record<string, { count: number; bytes: number }>;
  nvtx: Record<string, number>;
  api: Record<string, number>;
}

const rangeKinds: Record<number, string> = {
  [RangeKind.PushPop]: 'push-pop',
  [RangeKind.StartEnd]: 'start-end',
  [RangeKind.Mark]: 'mark',
};

/**
 * One spelling for both demanglers, and no parameter list: nsys writes `(int)128`,
 * `<unnamed>`, `[lambda() (instance 3)]`, `const float *` and template parameters as `T1, T2`
 * where the C++ runtime's writes `128`, `(anonymous namespace)`, `{lambda()#3}`, `float const*`
 * and the types themselves (and nsys adds `void` before function templates in arguments).
 */
export function kernelKey(name: string): string {
  let key = name
    .replace(/\bconst\b/g, '')
    .replace(/\s+/g, '')
    .replace(/\[lambda\(([^)]*)\)\(instance(\d+)\)\]/g, 'lambda($1)#$2')
    .replace(/\{lambda\(([^)]*)\)#(\d+)\}/g, 'lambda($1)#$2')
    .replace(/<unnamed>/g, '(anonymousnamespace)')
    .replace(/\((?:unsigned)?(?:int|long|longlong|short|char|bool)\)(?=-?\d|true|false)/g, '')
    .replace(/([<,(]-?\d+)(?:ull|ul|ll|u|l)(?=[>,)])/g, '$1')
    // nsys names a function template's return type inside template arguments; the runtime not.
    .replace(/([<,])void(?=[A-Za-z_])/g, '$1')
    // ...and keeps template parameters (T2) in enclosing functions' parameter lists: drop those.
    .replace(/\([^()]*\)(?=::)/g, '');
  if (key.endsWith(')')) {
    let depth = 0;
    for (let i = key.length - 1; i >= 0; i--) {
      depth += key[i] === ')' ? 1 : key[i] === '(' ? -1 : 0;
      if (depth === 0) {
        key = key.slice(0, i);
        break;
      }
    }
  }
  return key;
}

/** The same statistics from one of our traces. */
export function statsOf(trace: Trace): Stats {
  const stats: Stats = { streams: {}, kernels: {}, copies: {}, nvtx: {}, api: {} };
  const ops = trace.ops.columns();
  for (let i = 0; i < ops.count; i++) {
    const kind = ops.kind[i]!;
    const track = trace.tracks[ops.track[i]!]!;
    if (kind === OpKind.ApiCall) {
      const name = trace.name(ops.nameId[i]!);
      stats.api[name] = (stats.api[name] ?? 0) + 1;
      continue;
    }
    if (track.kind !== 'gpu-stream') {
      continue;
    }
    const key = `${track.deviceId}:${track.streamId}`;
    const lane = (stats.streams[key] ??= { kernel: 0, copy: 0, memset: 0 });
    if (kind === OpKind.Kernel) {
      lane.kernel++;
      const k = (stats.kernels[kernelKey(trace.name(ops.nameId[i]!))] ??= { count: 0, totalNs: 0 });
      k.count++;
      k.totalNs += ops.endNs[i]! - ops.startNs[i]!;
    } else if (isCopyKind(kind)) {
      lane.copy++;
      const c = (stats.copies[opKindName(kind)] ??= { count: 0, bytes: 0 });
      c.count++;
      c.bytes += ops.bytes[i]!;
    } else if (kind === OpKind.Memset) {
      lane.memset++;
    }
  }
  const ranges = trace.ranges.columns();
  for (let i = 0; i < ranges.count; i++) {
    const key = `${rangeKinds[ranges.kind[i]!]}|${trace.name(ranges.nameId[i]!)}`;
    stats.nvtx[key] = (stats.nvtx[key] ?? 0) + 1;
  }
  return stats;
}

export function compare(ours: Stats, nsys: Stats, tolerance = 0.05): string[] {
  const problems: string[] = [];
  const lines: string[] = [];
  const keys = new Set([...Object.keys(ours.streams), ...Object.keys(nsys.streams)]);
  for (const key of [...keys].sort()) {
    const a = ours.streams[key] ?? { kernel: 0, copy: 0, memset: 0 };
    const b = nsys.streams[key] ?? { kernel: 0, copy: 0, memset: 0 };
    const same = a.kernel === b.kernel && a.copy === b.copy && a.memset === b.memset;
    lines.push(
      `stream ${key}: kernels ${a.kernel}/${b.kernel} copies ${a.copy}/${b.copy} memsets ${a.memset}/${b.memset} ${same ? 'same' : 'DIFFERENT'}`,
    );
    if (!same) {
      problems.push(`stream ${key} counts differ`);
    }
  }
  let worst = 0;
  const nsysKernels: Stats['kernels'] = {};
  for (const [name, b] of Object.entries(nsys.kernels)) {
    const k = (nsysKernels[kernelKey(name)] ??= { count: 0, totalNs: 0 });
    k.count += b.count;
    k.totalNs += b.totalNs;
  }
  for (const [name, b] of Object.entries(nsysKernels)) {
    const a = ours.kernels[name];
    if (a === undefined) {
      problems.push(`kernel ${name.slice(0, 80)} missing`);
      continue;
    }
    const ratio = a.totalNs / b.totalNs;
    worst = Math.max(worst, Math.abs(ratio - 1));
    if (a.count !== b.count || Math.abs(ratio - 1) > tolerance) {
      problems.push(
        `kernel ${name.slice(0, 80)}: ${a.count}/${b.count} launches, total ${a.totalNs}/${b.totalNs} ns`,
      );
    }
  }
  for (const name of Object.keys(ours.kernels)) {
    if (nsysKernels[name] === undefined) {
      problems.push(`kernel ${name.slice(0, 80)} only in ours`);
    }
  }
  lines.push(
    `kernel names: ${Object.keys(ours.kernels).length}/${Object.keys(nsysKernels).length}, worst total-duration difference ${(worst * 100).toFixed(2)} %`,
  );
  for (const kind of new Set([...Object.keys(ours.copies), ...Object.keys(nsys.copies)])) {
    const a = ours.copies[kind];
    const b = nsys.copies[kind];
    lines.push(
      `${kind}: ${a?.count ?? 0}/${b?.count ?? 0} copies, ${a?.bytes ?? 0}/${b?.bytes ?? 0} bytes`,
    );
    if (a?.count !== b?.count || a?.bytes !== b?.bytes) {
      problems.push(`${kind} differs`);
    }
  }
  const nvtxKeys = new Set([...Object.keys(ours.nvtx), ...Object.keys(nsys.nvtx)]);
  let nvtxSame = 0;
  for (const key of nvtxKeys) {
    if (ours.nvtx[key] === nsys.nvtx[key]) {
      nvtxSame++;
    } else {
      problems.push(`NVTX ${key}: ${ours.nvtx[key] ?? 0}/${nsys.nvtx[key] ?? 0}`);
    }
  }
  lines.push(`NVTX (name, kind): ${nvtxSame} of ${nvtxKeys.size} identical in count`);
  // API calls are reported, not judged: which query calls each tool leaves out differs.
  const total = (api: Record<string, number>): number =>
    Object.values(api).reduce((a, b) => a + b, 0);
  lines.push(`API calls: ours ${total(ours.api)}, nsys ${total(nsys.api)}`);
  for (const name of new Set([...Object.keys(ours.api), ...Object.keys(nsys.api)])) {
    if (ours.api[name] !== nsys.api[name]) {
      lines.push(`  ${name}: ours ${ours.api[name] ?? 0}, nsys ${nsys.api[name] ?? 0}`);
    }
  }
  return [...lines, ...problems.map((p) => `DISAGREES: ${p}`)];
}

const isEntry = process.argv[1]?.endsWith('compare.ts') === true;
if (isEntry) {
  const [oursPath, nsysPath] = process.argv.slice(2);
  if (oursPath === undefined || nsysPath === undefined) {
    process.stderr.write('usage: compare.ts OURS.sstrace NSYS.stats.json\n');
    process.exit(2);
  }
  const ours = statsOf(loadTrace(new Uint8Array(readFileSync(oursPath))));
  const nsys = JSON.parse(readFileSync(nsysPath, 'utf8')) as Stats;
  const report = compare(ours, nsys);
  process.stdout.write(`${report.join('\n')}\n`);
  process.exit(report.some((line) => line.startsWith('DISAGREES')) ? 1 : 0);
}
