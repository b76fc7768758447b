// Test and benchmark helper (not exported from index.ts): a trace whose Chrome export is as large
// as asked, with every kind of event the exporter writes.
import { FlowKind, OpKind, RangeKind, Trace } from '@streamscope/trace';

/**
 * `opCount` ops (kernels on 4 streams, each launched by an API call on one host thread, half of
 * them linked by a flow), NVTX ranges in two domains, and record→wait and graph flows. Kernel
 * names are `nameChars` long and hold characters JSON must escape (quotes, backslashes, tabs)
 * and non-ASCII ones. Deterministic.
 */
export function exportTestTrace(opCount: number, nameChars: number): Trace {
  const trace = new Trace({ title: `export ${opCount}`, sourceFormat: 'nsys-json' });
  trace.addDevice({ deviceId: 0, name: 'Test "GPU"' });
  trace.addProcess({ pid: 4242, name: 'train.py' });
  const host = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 4242, tid: 4243 });
  const streams = [0, 1, 2, 3].map((s) =>
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 4242,
      deviceId: 0,
      contextId: 1,
      streamId: 7 + s,
      streamType: s === 0 ? 'legacy-default' : 'non-blocking',
      priority: 0,
    }),
  );
  const stem = 'void gemm<"q\\t"\tµ≤>(';
  const names = Array.from({ length: 16 }, (_, k) =>
    trace.strings.intern(`${stem}${k})`.padEnd(nameChars, 'x').slice(0, nameChars)),
  );
  const launchName = trace.strings.intern('cudaLaunchKernel');
  const domain = trace.strings.intern('pytorch');
  const rangeName = trace.strings.intern('forward "step"');
  let hostNs = 1000;
  let previousKernel = -1;
  for (let made = 0; made + 1 < opCount; made += 2) {
    const i = made / 2;
    const api = trace.ops.append({
      startNs: hostNs,
      endNs: hostNs + 1500,
      track: host,
      kind: OpKind.ApiCall,
      nameId: launchName,
      bytes: 0,
      memKinds: 0,
      correlationId: i + 1,
      refId: 0xffffffff,
      flags: 0,
    });
    const startNs = hostNs + 4000 + (i % 3) * 333;
    const kernel = trace.ops.append({
      startNs,
      endNs: startNs + 10_000 + ((i * 7919) % 50_000) + 0.5,
      track: streams[i % 4]!,
      kind: OpKind.Kernel,
      nameId: names[i % names.length]!,
      bytes: i % 5 === 0 ? 4096 : 0,
      memKinds: 0,
      correlationId: i + 1,
      refId: 0xffffffff,
      flags: 0,
    });
    if (i % 2 === 0) {
      trace.flows.append(api, kernel, FlowKind.ApiToGpu);
    }
    if (i % 7 === 3 && previousKernel >= 0) {
      trace.flows.append(
        previousKernel,
        kernel,
        i % 2 === 0 ? FlowKind.EventRecordToWait : FlowKind.GraphToNode,
      );
    }
    if (i % 50 === 0) {
      trace.ranges.append({
        startNs: hostNs,
        endNs: hostNs + 20_000,
        track: host,
        nameId: rangeName,
        domainId: i % 100 === 0 ? 0 : domain,
        depth: 0,
        kind: RangeKind.PushPop,
      });
    }
    previousKernel = kernel;
    hostNs += 2500;
  }
  return trace;
}
