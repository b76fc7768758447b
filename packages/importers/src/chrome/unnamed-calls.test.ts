import { OpKind } from '@streamscope/trace';
import type { Trace } from '@streamscope/trace';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { importFixture, readFixture } from '../test-support.ts';
import { apiToGpu, importText, opLines } from './chrome-test-support.ts';

/** A kineto complete event with `args` as given (`null`: none). */
function x(cat: string, name: string, ts: number, args: string | null, nameKey = 'name'): string {
  const tail = args === null ? '' : `,"args":{${args}}`;
  return `{"ph":"X","cat":"${cat}","${nameKey}":"${name}","pid":7,"tid":7,"ts":${ts},"dur":1${tail}}`;
}

/** API calls by name, counted. */
function apiNames(trace: Trace): Record<string, number> {
  const ops = trace.ops.columns();
  const counts: Record<string, number> = {};
  for (let i = 0; i < ops.count; i++) {
    if (ops.kind[i] === OpKind.ApiCall) {
      const name = trace.name(ops.nameId[i]!);
      counts[name] = (counts[name] ?? 0) + 1;
    }
  }
  return counts;
}

describe('API calls kineto could not name ("INVALID")', () => {
  it('are named by their callback id, runtime or driver by their category', async () => {
    const { trace } = await importText(
      `[${[
        x('cuda_runtime', 'cudaLaunchKernel', 0, '"cbid":211,"correlation":1'),
        x('cuda_runtime', 'INVALID', 10, '"External id":17,"cbid":461,"correlation":2'),
        x('cuda_runtime', 'INVALID', 20, '"External id":18,"cbid":486,"correlation":3'),
        x('cuda_runtime', 'INVALID', 30, '"External id":19,"cbid":461,"correlation":4'),
        x('cuda_driver', 'INVALID', 40, '"cbid":9999,"correlation":5'),
        x('cuda_runtime', 'INVALID', 50, '"correlation":6'),
        x('cuda_runtime', 'INVALID', 60, null),
        // Not an API call: a CPU op of that name keeps it.
        x('cpu_op', 'INVALID', 70, '"cbid":461'),
        x('kernel', 'k', 12, '"stream":7,"device":0,"correlation":2'),
      ].join(',')}]`,
      'unnamed.pt.trace.json',
    );
    expect(opLines(trace).filter((l) => l.includes('|api-call|'))).toEqual([
      'Thread 7|api-call|cudaLaunchKernel|0+1000',
      'Thread 7|api-call|CUDA runtime call (cbid 461)|10000+1000',
      'Thread 7|api-call|CUDA runtime call (cbid 486)|20000+1000',
      'Thread 7|api-call|CUDA runtime call (cbid 461)|30000+1000',
      'Thread 7|api-call|CUDA driver call (cbid 9999)|40000+1000',
      'Thread 7|api-call|CUDA runtime call (the profiler gave no name or callback id)|50000+1000',
      'Thread 7|api-call|CUDA runtime call (the profiler gave no name or callback id)|60000+1000',
    ]);
    const ranges = trace.ranges.columns();
    expect(trace.name(ranges.nameId[0]!)).toBe('INVALID');
    // Still joined to what it launched by its correlation id.
    expect(apiToGpu(trace)).toEqual([[1, 7]]);
  });

  it('are named alike when an event goes through JSON.parse instead of the scanner', async () => {
    // A key written with an escape ("na\\u006de" is "name") is left to JSON.parse.
    const { trace } = await importText(
      `[${[
        x('cuda_runtime', 'INVALID', 0, '"cbid":461,"correlation":1', 'na\\u006de'),
        x('cuda_runtime', 'INVALID', 10, '"cbid":486,"correlation":2'),
      ].join(',')}]`,
      'unnamed.pt.trace.json',
    );
    expect(apiNames(trace)).toEqual({
      'CUDA runtime call (cbid 461)': 1,
      'CUDA runtime call (cbid 486)': 1,
    });
  });

  it('are named by callback id in the recorded DDP and FSDP traces, as many as the files hold', async () => {
    for (const file of [
      'kineto/ddp2gpu-rank0.pt.trace.json.gz',
      'kineto/fsdp2gpu-rank0.pt.trace.json.gz',
      'kineto/fsdp2gpu-rank1.pt.trace.json.gz',
    ]) {
      // What the file holds, read with JSON.parse: its INVALID events by callback id.
      const json = JSON.parse(new TextDecoder().decode(gunzipSync(readFixture(file)))) as {
        traceEvents: { name?: string; cat?: string; args?: { cbid?: number } }[];
      };
      const expected: Record<string, number> = {};
      for (const e of json.traceEvents) {
        if (e.name === 'INVALID' && e.cat === 'cuda_runtime') {
          const name = `CUDA runtime call (cbid ${e.args?.cbid})`;
          expected[name] = (expected[name] ?? 0) + 1;
        }
      }
      const { trace } = await importFixture(file);
      const names = apiNames(trace);
      const renamed = Object.fromEntries(
        Object.entries(names).filter(([name]) => name.startsWith('CUDA runtime call')),
      );
      expect(renamed, file).toEqual(expected);
      expect(names['INVALID'], file).toBeUndefined();
    }
    // As recorded (fixtures/kineto/README.md): CUDA 13's runtime callback 461, 72 per FSDP rank;
    // the DDP rank's 36 are 24 of 461 and 12 of 486.
    const fsdp = apiNames((await importFixture('kineto/fsdp2gpu-rank0.pt.trace.json.gz')).trace);
    expect(fsdp['CUDA runtime call (cbid 461)']).toBe(72);
    const ddp = apiNames((await importFixture('kineto/ddp2gpu-rank0.pt.trace.json.gz')).trace);
    expect(ddp['CUDA runtime call (cbid 461)']).toBe(24);
    expect(ddp['CUDA runtime call (cbid 486)']).toBe(12);
  });
});
