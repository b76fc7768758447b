import { LineWriter } from './line-writer.ts';
import { IdleStart, planReplicas } from './replica-plan.ts';

/** What a generator wrote. */
export interface Generated {
  readonly gpuOps: number;
  readonly copies: number;
  readonly bytes: number;
}

const timeField = /"(startNs|endNs|Timestamp|EndTimestamp)":"(\d+)"/g;
const corrField = /"correlationId":(\d+)/g;
const syncIdField = /"eventSyncId":"(\d+)"/g;
const cudaApiClass = /"eventClass":[01],/;
const gpuOpLine = /"(kernel|memcpy|memset|graph)":\{/;

/**
 * An nsys JSON export (layout B: string table first, thread names last) made of `template`'s
 * events repeated until `gpuOps` GPU ops: the recording's idle start is written once
 * (replica-plan.ts) and its busy part repeated back to back, each copy's times past the previous
 * copy's busy part and its correlation and event sync ids past the template's largest, so API
 * calls and GPU ops still pair up within a copy. Process records and events, the profiler's own
 * thread events and diagnostics are kept once.
 */
export function generateNsysJson(template: string, gpuOps: number, outPath: string): Generated {
  const lines = template.split('\n').filter((l) => l !== '');
  const first = lines[0]!;
  const last = lines.at(-1)!;
  const events = lines.slice(1, -1);
  // Process records, the profiler's process events (its start and stop) and its own thread
  // events (Type 48 of classes other than the CUDA runtime's 0 and 1), and diagnostics are
  // written once, as the SQLite export keeps them outside the tables it repeats; every other
  // event is timed for the plan.
  const keptOnce = (line: string): boolean =>
    line.startsWith('{"Type":27,') ||
    line.startsWith('{"Type":47,') ||
    line.startsWith('{"Type":49,') ||
    (line.startsWith('{"Type":48,') && !cudaApiClass.test(line));
  const startNs: number[] = [];
  const corr: number[] = [];
  const intervals: [number, number][] = [];
  let maxCorr = 0;
  let maxSyncId = 0;
  for (const line of events) {
    let firstNs = 0;
    let lastNs = 0;
    for (const m of line.matchAll(timeField)) {
      const ns = Number(m[2]);
      if (ns > 0) {
        firstNs = firstNs === 0 ? ns : Math.min(firstNs, ns);
        lastNs = Math.max(lastNs, ns);
      }
    }
    let lineCorr = 0;
    for (const m of line.matchAll(corrField)) {
      lineCorr = Number(m[1]);
      maxCorr = Math.max(maxCorr, lineCorr);
    }
    for (const m of line.matchAll(syncIdField)) {
      maxSyncId = Math.max(maxSyncId, Number(m[1]));
    }
    startNs.push(firstNs);
    corr.push(lineCorr);
    if (!keptOnce(line)) {
      intervals.push([firstNs, lastNs]);
    }
  }
  const plan = planReplicas(intervals, pushPopRanges(events));
  const idleStart = new IdleStart(plan);
  events.forEach((line, i) => {
    if (!keptOnce(line)) {
      idleStart.note(startNs[i]!, corr[i]!);
    }
  });
  const once = events.map((line, i) => keptOnce(line) || idleStart.has(startNs[i]!, corr[i]!));
  let onceGpuOps = 0;
  let perCopy = 0;
  events.forEach((line, i) => {
    if (line.includes('"CudaEvent"') && gpuOpLine.test(line)) {
      if (once[i]!) {
        onceGpuOps++;
      } else {
        perCopy++;
      }
    }
  });
  if (perCopy === 0) {
    throw new Error('the template has no GPU ops to repeat');
  }
  const copies = Math.max(1, Math.ceil((gpuOps - onceGpuOps) / perCopy));
  const out = new LineWriter(outPath);
  out.write(`${first}\n`);
  for (let c = 0; c < copies; c++) {
    const shiftNs = c * plan.strideNs;
    const shiftCorr = c * (maxCorr + 1);
    const shiftSync = c * (maxSyncId + 1);
    for (const [i, line] of events.entries()) {
      if (c > 0 && once[i]!) {
        continue;
      }
      out.write(
        `${
          c === 0
            ? line
            : line
                .replace(timeField, (_, k: string, v: string) =>
                  v === '0' ? `"${k}":"0"` : `"${k}":"${Number(v) + shiftNs}"`,
                )
                .replace(corrField, (_, v: string) =>
                  v === '0' ? '"correlationId":0' : `"correlationId":${Number(v) + shiftCorr}`,
                )
                .replace(syncIdField, (_, v: string) => `"eventSyncId":"${Number(v) + shiftSync}"`)
        }\n`,
      );
    }
  }
  out.write(`${last}\n`);
  out.close();
  return { gpuOps: onceGpuOps + copies * perCopy, copies, bytes: out.bytes };
}

const pushPopLine = /^\{"Type":59,"NvtxEvent":\{.*"Timestamp":"(\d+)".*"EndTimestamp":"(\d+)"/;

/** NVTX push/pop ranges (Type 59): start and end ns, the steps a warm-up is told by. */
function pushPopRanges(events: readonly string[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const line of events) {
    const m = pushPopLine.exec(line);
    if (m !== null) {
      ranges.push([Number(m[1]), Number(m[2])]);
    }
  }
  return ranges;
}
