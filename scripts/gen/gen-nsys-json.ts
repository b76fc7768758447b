import { LineWriter } from './line-writer.ts';

/** What a generator wrote. */
export interface Generated {
  readonly gpuOps: number;
  readonly copies: number;
  readonly bytes: number;
}

const timeField = /"(startNs|endNs|Timestamp|EndTimestamp)":"(\d+)"/g;
const corrField = /"correlationId":(\d+)/g;
const syncIdField = /"eventSyncId":"(\d+)"/g;
const gpuOpLine = /"(kernel|memcpy|memset|graph)":\{/;

/**
 * An nsys JSON export (layout B: string table first, thread names last) made of `template`'s
 * events repeated until `gpuOps` GPU ops: each copy's times move past the previous copy's span,
 * and its correlation and event sync ids past the previous copy's largest, so API calls and GPU
 * ops still pair up within a copy. Process records (Type 27) and diagnostics are kept once.
 */
export function generateNsysJson(template: string, gpuOps: number, outPath: string): Generated {
  const lines = template.split('\n').filter((l) => l !== '');
  const first = lines[0]!;
  const last = lines.at(-1)!;
  const events = lines.slice(1, -1);
  let minNs = Infinity;
  let maxNs = 0;
  let maxCorr = 0;
  let maxSyncId = 0;
  let perCopy = 0;
  for (const line of events) {
    for (const m of line.matchAll(timeField)) {
      const ns = Number(m[2]);
      if (ns > 0) {
        minNs = Math.min(minNs, ns);
        maxNs = Math.max(maxNs, ns);
      }
    }
    for (const m of line.matchAll(corrField)) {
      maxCorr = Math.max(maxCorr, Number(m[1]));
    }
    for (const m of line.matchAll(syncIdField)) {
      maxSyncId = Math.max(maxSyncId, Number(m[1]));
    }
    if (line.includes('"CudaEvent"') && gpuOpLine.test(line)) {
      perCopy++;
    }
  }
  if (perCopy === 0) {
    throw new Error('the template has no GPU ops to repeat');
  }
  const copies = Math.ceil(gpuOps / perCopy);
  const spanNs = maxNs - minNs + 1000;
  const out = new LineWriter(outPath);
  out.write(`${first}\n`);
  for (let c = 0; c < copies; c++) {
    const shiftNs = c * spanNs;
    const shiftCorr = c * (maxCorr + 1);
    const shiftSync = c * (maxSyncId + 1);
    for (const line of events) {
      if (c > 0 && (line.startsWith('{"Type":27,') || line.startsWith('{"Type":49,'))) {
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
  return { gpuOps: copies * perCopy, copies, bytes: out.bytes };
}
