import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * Writes a kineto (Chrome trace) file of `kernels` kernels, alternating over two streams, each
 * launched by a cudaLaunchKernel call on one host thread: `2 * kernels` ops in all, about 270
 * bytes per kernel, so 300,000 kernels make a file of about 81 MB that takes the server many
 * progress steps to parse.
 */
export async function writeBigKinetoTrace(filePath: string, kernels: number): Promise<void> {
  const out = createWriteStream(filePath);
  out.write('{"schemaVersion":1,"traceEvents":[');
  out.write('{"name":"process_name","ph":"M","ts":0,"pid":0,"tid":0,"args":{"name":"gpu"}}');
  let pending = '';
  for (let i = 0; i < kernels; i++) {
    // Microsecond timestamps: a launch every 2 µs, its kernel 1 µs later for 1.5 µs.
    const ts = 1000 + i * 2;
    const stream = 7 + (i % 2);
    pending +=
      `,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":${ts},` +
      `"dur":1,"args":{"correlation":${i + 1}}}` +
      `,{"ph":"X","cat":"kernel","name":"kernel_${i % 50}","pid":0,"tid":${stream},` +
      `"ts":${ts + 1},"dur":1.5,"args":{"device":0,"context":1,"stream":${stream},` +
      `"correlation":${i + 1}}}`;
    if (pending.length > 1 << 20) {
      if (!out.write(pending)) {
        await once(out, 'drain');
      }
      pending = '';
    }
  }
  out.end(`${pending}]}`);
  await once(out, 'finish');
}
