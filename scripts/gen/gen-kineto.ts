import type { Generated } from './gen-nsys-json.ts';
import { LineWriter } from './line-writer.ts';

type KinetoEvent = {
  ph?: string;
  cat?: string;
  ts?: number;
  id?: number;
  args?: Record<string, unknown>;
} & Record<string, unknown>;

const gpuCategories = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);

/**
 * A PyTorch profiler (kineto) trace made of `template`'s events repeated until `gpuOps` GPU ops:
 * each copy's timestamps move past the previous copy's span, its correlation ids and flow ids
 * past the previous copy's largest. Metadata events (ph M) are kept once.
 */
export function generateKineto(template: string, gpuOps: number, outPath: string): Generated {
  const doc = JSON.parse(template) as { traceEvents: KinetoEvent[] } & Record<string, unknown>;
  const events = doc.traceEvents;
  let minUs = Infinity;
  let maxUs = 0;
  let maxCorr = 0;
  let maxFlow = 0;
  let perCopy = 0;
  for (const e of events) {
    if (typeof e.ts === 'number' && e.ph !== 'M') {
      minUs = Math.min(minUs, e.ts);
      maxUs = Math.max(maxUs, e.ts + (typeof e['dur'] === 'number' ? e['dur'] : 0));
    }
    const corr = e.args?.['correlation'];
    if (typeof corr === 'number') {
      maxCorr = Math.max(maxCorr, corr);
    }
    if ((e.ph === 's' || e.ph === 'f') && typeof e.id === 'number') {
      maxFlow = Math.max(maxFlow, e.id);
    }
    if (e.ph === 'X' && gpuCategories.has(e.cat ?? '')) {
      perCopy++;
    }
  }
  if (perCopy === 0) {
    throw new Error('the template has no GPU ops to repeat');
  }
  const copies = Math.ceil(gpuOps / perCopy);
  const spanUs = Math.ceil(maxUs - minUs) + 1;
  const out = new LineWriter(outPath);
  const { traceEvents: _events, ...rest } = doc;
  void _events;
  const head = JSON.stringify(rest);
  out.write(`${head.slice(0, -1)}${head === '{}' ? '' : ','}\n"traceEvents":[\n`);
  let firstEvent = true;
  for (let c = 0; c < copies; c++) {
    for (const e of events) {
      if (c > 0 && e.ph === 'M') {
        continue;
      }
      let copy: KinetoEvent = e;
      if (c > 0) {
        copy = { ...e };
        if (typeof e.ts === 'number') {
          copy.ts = e.ts + c * spanUs;
        }
        if ((e.ph === 's' || e.ph === 'f') && typeof e.id === 'number') {
          copy.id = e.id + c * (maxFlow + 1);
        }
        const corr = e.args?.['correlation'];
        if (typeof corr === 'number' && corr !== 0) {
          copy.args = { ...e.args, correlation: corr + c * (maxCorr + 1) };
        }
      }
      out.write(`${firstEvent ? '' : ',\n'}${JSON.stringify(copy)}`);
      firstEvent = false;
    }
  }
  out.write('\n]}\n');
  out.close();
  return { gpuOps: copies * perCopy, copies, bytes: out.bytes };
}
