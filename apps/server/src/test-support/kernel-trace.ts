import { OpKind, StreamType, Trace } from '@streamscope/trace';

/** A small stored-trace body for upload tests: `opCount` kernels named 'k' on one GPU stream. */
export function kernelTrace(
  opCount: number,
  options: {
    readonly title?: string;
    readonly pid?: number;
    /** Start-to-start spacing and duration of each kernel, in ns. */
    readonly periodNs?: number;
    readonly durNs?: number;
  } = {},
): Trace {
  const { title = 'sample', pid = 7, periodNs = 100, durNs = 50 } = options;
  const trace = new Trace({ title, sourceFormat: 'streamscope-sim' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  trace.addProcess({ pid, name: 'app' });
  trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: StreamType.Blocking,
    priority: 0,
  });
  const nameId = trace.strings.intern('k');
  for (let i = 0; i < opCount; i++) {
    const startNs = i * periodNs;
    trace.addOp({ startNs, endNs: startNs + durNs, track: 0, kind: OpKind.Kernel, nameId });
  }
  return trace;
}
