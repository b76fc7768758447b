// A small kineto trace for the export, axis and label e2e specs: a forward and a backward range
// on the host thread, each launching kernels on stream 7 (correlation ids join them). Times in µs.
export function kinetoTrace(kernelName = 'gemm_kernel', threadName?: string): string {
  const events: Record<string, unknown>[] = [
    ...(threadName === undefined
      ? []
      : [{ ph: 'M', name: 'thread_name', pid: 7, tid: 7, args: { name: threadName } }]),
    { ph: 'X', cat: 'user_annotation', name: 'forward', pid: 7, tid: 7, ts: 0, dur: 1000 },
    { ph: 'X', cat: 'user_annotation', name: 'backward', pid: 7, tid: 7, ts: 1000, dur: 1000 },
  ];
  const kernels = [
    { launchUs: 10, startUs: 30, durUs: 600 },
    { launchUs: 20, startUs: 640, durUs: 500 },
    { launchUs: 1010, startUs: 1150, durUs: 800 },
    { launchUs: 1020, startUs: 1960, durUs: 300 },
  ];
  kernels.forEach((k, i) => {
    const correlation = 100 + i;
    events.push(
      {
        ph: 'X',
        cat: 'cuda_runtime',
        name: 'cudaLaunchKernel',
        pid: 7,
        tid: 7,
        ts: k.launchUs,
        dur: 6,
        args: { correlation },
      },
      {
        ph: 'X',
        cat: 'kernel',
        name: kernelName,
        pid: 0,
        tid: 'stream 7',
        ts: k.startUs,
        dur: k.durUs,
        args: { correlation, device: 0, stream: 7 },
      },
    );
  });
  return JSON.stringify({ schemaVersion: 1, traceEvents: events });
}
