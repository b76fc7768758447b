import { ChromeEvent } from './chrome-event.ts';
import { ChromeEventScanner } from './event-scanner.ts';
import { keepShape } from '../shape-keeper.ts';

/** One event of each shape the scanner's paths meet in PyTorch traces, compact and indented. */
export const warmUpShapes = [
  '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":853,"tid":891,"ts":4460266250133.682,"dur":108.458,"args":{"External id":526,"Record function id":0,"Ev Idx":13}}',
  '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":853,"tid":891,"ts":4460266250140.5,"dur":5.25,"args":{"External id":526,"cbid":211,"correlation":1234}}',
  '{"ph":"X","cat":"kernel","name":"void gemm<float>(float*)","pid":0,"tid":7,"ts":4460266250150.125,"dur":20,"args":{"External id":526,"queued":0,"device":0,"context":1,"stream":7,"correlation":1234,"registers per thread":128,"shared memory":0,"blocks per SM":2.5,"warps per SM":10,"grid":[330,1,1],"block":[128,1,1],"est. achieved occupancy %":25}}',
  '{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":4460266250190,"dur":3.5,"args":{"device":0,"context":1,"stream":7,"correlation":1240,"bytes":4096,"memory bandwidth (GB/s)":1.2}}',
  '{"ph":"s","id":1234,"pid":853,"tid":891,"ts":4460266250140.5,"cat":"ac2g","name":"ac2g"}',
  '{"ph":"f","id":1234,"pid":0,"tid":7,"ts":4460266250150.125,"cat":"ac2g","name":"ac2g","bp":"e"}',
  '{"ph":"i","s":"t","name":"Iteration Start: PyTorch Profiler","pid":853,"tid":891,"ts":"4460266250000"}',
  '{"ph":"M","name":"process_name","pid":853,"tid":0,"args":{"name":"python"}}',
  '{\n    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 853, "tid": 891,\n    "ts": 4460266250047.376, "dur": 2538.732,\n    "args": {\n      "External id": 513, "Ev Idx": 0\n    }\n  }',
  '{\n    "ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 853, "tid": "891",\n    "ts": 4.460266250047e12, "dur": 1,\n    "args": {\n      "correlation": 77, "device": null\n    }\n  }',
];

let warmed = false;

/**
 * Runs a throwaway scanner over each shape a few times, once per process, before the first
 * import: the scanner is one large function that V8 optimizes early, and a path it has never
 * taken by then (a learned span, a flow, a kernel's grid, a time it leaves to EventTimes) would
 * throw that code away and compile it again when first met (12–30 ms each, several times in an
 * import of a recorded trace). Taken here, every path has its feedback when it is optimized.
 */
export function warmUpScanner(): void {
  if (warmed) {
    return;
  }
  warmed = true;
  const scanner = new ChromeEventScanner();
  const e = new ChromeEvent();
  const encoder = new TextEncoder();
  for (let round = 0; round < 3; round++) {
    for (const shape of warmUpShapes) {
      const bytes = encoder.encode(shape);
      scanner.scan(bytes, 0, bytes.length, e);
      void e.name;
    }
  }
  // Kept, so that the optimized code outlives an import (see keepShape): a worker's next
  // import starts from it.
  keepShape(scanner);
  keepShape(e);
}
