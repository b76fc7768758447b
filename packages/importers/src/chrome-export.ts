import type { Trace, TraceMeta, TrackInfo } from '@streamscope/trace';
import { FlowKind, opKindName, trackLabel } from '@streamscope/trace';

// Synthetic pids for GPUs in the output, far above real pids (Linux pids stay below 2^22).
const gpuPidBase = 1 << 24;

/**
 * The trace as Chrome trace event JSON that Perfetto and chrome://tracing open: every GPU stream
 * and host thread a track (GPUs as their own process per owning process and device), ops and
 * ranges as complete events, API→GPU and record→wait links as flow arrows. One string: for
 * small traces (a large one outgrows V8's longest string); `chromeTraceChunks` streams any size.
 */
export function exportChromeTrace(trace: Trace): string {
  let json = '';
  for (const chunk of chromeTraceChunks(trace)) {
    json += chunk;
  }
  return json;
}

/** Characters per chunk `chromeTraceChunks` yields by default (a chunk may exceed it by one event). */
const chromeChunkChars = 1 << 16;

/**
 * How the export begins: everything before the first event, made from the trace's meta alone
 * (so a server can send it before it has read the rest of the trace).
 */
export function chromeTraceHead(meta: TraceMeta): string {
  const header = JSON.stringify({
    producer: meta.producer,
    sourceFormat: meta.sourceFormat,
    originNs: meta.originNs,
  });
  return `{"displayTimeUnit":"ns","otherData":${header},"traceEvents":[\n`;
}

/**
 * The same JSON as `exportChromeTrace`, as chunks of about `chunkChars` characters, made one at a
 * time as the consumer asks for them: memory stays that of one chunk whatever the trace's size,
 * and the consumer's pace is the exporter's (pull = backpressure). The head
 * (`chromeTraceHead`) comes first as a chunk of its own, unless `withHead` is false.
 */
export function* chromeTraceChunks(
  trace: Trace,
  chunkChars: number = chromeChunkChars,
  withHead = true,
): Generator<string, void, undefined> {
  if (withHead) {
    yield chromeTraceHead(trace.meta);
  }
  let chunk = '';
  let first = true;
  for (const event of chromeEvents(trace)) {
    chunk += first ? event : `,\n${event}`;
    first = false;
    if (chunk.length >= chunkChars) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}\n]}\n`;
}

/** Each event's JSON, in file order: track names, process names, ops, ranges, flows. */
function* chromeEvents(trace: Trace): Generator<string, void, undefined> {
  const where = trace.tracks.map((track, i) => place(track, i));
  const pidNames = new Map<number, string>();
  const processName = new Map(trace.processes.map((p) => [p.pid, p.name]));
  for (let i = 0; i < trace.tracks.length; i++) {
    const track = trace.tracks[i]!;
    const { pid, tid } = where[i]!;
    if (!pidNames.has(pid)) {
      const owner = `${processName.get(track.pid) ?? ''} ${track.pid}`.trim();
      const device =
        track.kind === 'gpu-stream'
          ? trace.devices.find((d) => d.deviceId === track.deviceId)
          : undefined;
      pidNames.set(
        pid,
        track.kind === 'gpu-stream'
          ? `GPU ${track.deviceId} ${device?.name ?? ''} (${owner})`.replace(/\s+/g, ' ')
          : owner,
      );
    }
    yield meta('thread_name', pid, tid, trackLabel(track));
    yield `{"ph":"M","name":"thread_sort_index","pid":${pid},"tid":${tid},"args":{"sort_index":${i}}}`;
  }
  for (const [pid, name] of pidNames) {
    yield meta('process_name', pid, 0, name);
  }
  const ops = trace.ops.columns();
  const names = new Map<number, string>();
  const nameOf = (id: number): string => {
    let text = names.get(id);
    if (text === undefined) {
      text = JSON.stringify(trace.name(id));
      names.set(id, text);
    }
    return text;
  };
  for (let i = 0; i < ops.count; i++) {
    const { pid, tid } = where[ops.track[i]!]!;
    const args = [`"op":${i}`];
    if (ops.bytes[i]! > 0) {
      args.push(`"bytes":${ops.bytes[i]}`);
    }
    if (ops.correlationId[i]! > 0) {
      args.push(`"correlation":${ops.correlationId[i]}`);
    }
    yield (
      `{"ph":"X","cat":"${opKindName(ops.kind[i]!)}","name":${nameOf(ops.nameId[i]!)},"pid":${pid},"tid":${tid},` +
      `"ts":${us(ops.startNs[i]!)},"dur":${us(ops.endNs[i]! - ops.startNs[i]!)},"args":{${args.join(',')}}}`
    );
  }
  const ranges = trace.ranges.columns();
  for (let i = 0; i < ranges.count; i++) {
    const { pid, tid } = where[ranges.track[i]!]!;
    const domain = ranges.domainId[i]! === 0 ? 'nvtx' : trace.name(ranges.domainId[i]!);
    yield (
      `{"ph":"X","cat":${JSON.stringify(domain)},"name":${nameOf(ranges.nameId[i]!)},"pid":${pid},"tid":${tid},` +
      `"ts":${us(ranges.startNs[i]!)},"dur":${us(ranges.endNs[i]! - ranges.startNs[i]!)}}`
    );
  }
  const flows = trace.flows.columns();
  for (let i = 0; i < flows.count; i++) {
    const from = flows.fromOp[i]!;
    const to = flows.toOp[i]!;
    if (from >= ops.count || to >= ops.count) {
      continue;
    }
    const a = where[ops.track[from]!]!;
    const b = where[ops.track[to]!]!;
    const name =
      flows.kind[i] === FlowKind.ApiToGpu
        ? 'launch'
        : flows.kind[i] === FlowKind.EventRecordToWait
          ? 'event'
          : 'graph';
    // The arrow leaves the API call at its start (a record at its end) and binds to the op's start.
    const fromNs =
      flows.kind[i] === FlowKind.EventRecordToWait ? ops.endNs[from]! : ops.startNs[from]!;
    yield `{"ph":"s","cat":"${name}","name":"${name}","id":${i + 1},"pid":${a.pid},"tid":${a.tid},"ts":${us(fromNs)}}`;
    yield `{"ph":"f","bp":"e","cat":"${name}","name":"${name}","id":${i + 1},"pid":${b.pid},"tid":${b.tid},"ts":${us(ops.startNs[to]!)}}`;
  }
}

function place(track: TrackInfo, index: number): { pid: number; tid: number } {
  if (track.kind === 'host-thread') {
    return { pid: track.pid, tid: track.tid };
  }
  return { pid: gpuPidBase + track.pid * 64 + (track.deviceId % 64), tid: index + 1 };
}

function meta(name: string, pid: number, tid: number, value: string): string {
  return `{"ph":"M","name":"${name}","pid":${pid},"tid":${tid},"args":{"name":${JSON.stringify(value)}}}`;
}

/** ns → µs with ns precision kept as three decimals. */
function us(ns: number): string {
  return (ns / 1000).toFixed(3);
}
