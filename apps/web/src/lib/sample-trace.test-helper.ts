import { OpKind, StreamType, Trace } from '@streamscope/trace';

/**
 * A small two-stream trace for unit tests:
 *   stream 1: H2D "copyA" [0, 100), kernel "gemm" [100, 300), kernel "gemm" [300, 350)
 *   stream 2: kernel "relu" [50, 60), kernel "GEMM_big" [400, 1000)
 */
export function sampleTrace(): Trace {
  const trace = new Trace({ title: 'sample' });
  trace.addDevice({ deviceId: 0, name: 'sim' });
  for (const streamId of [1, 2]) {
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId,
      streamType: StreamType.NonBlocking,
      priority: 0,
    });
  }
  const add = (track: number, kind: number, name: string, startNs: number, endNs: number): void => {
    trace.addOp({
      track,
      kind,
      nameId: trace.strings.intern(name),
      startNs,
      endNs,
      bytes: kind === OpKind.CopyHtoD ? 4096 : 0,
    });
  };
  add(0, OpKind.CopyHtoD, 'copyA', 0, 100);
  add(0, OpKind.Kernel, 'gemm', 100, 300);
  add(0, OpKind.Kernel, 'gemm', 300, 350);
  add(1, OpKind.Kernel, 'relu', 50, 60);
  add(1, OpKind.Kernel, 'GEMM_big', 400, 1000);
  return trace;
}
