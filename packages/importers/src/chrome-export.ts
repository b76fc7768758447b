import type { RecordBatches, Trace, TraceMeta, TrackInfo } from '@streamscope/trace';
import { opKindName, trackLabel, traceRecordBatches } from '@streamscope/trace';
import type { Place } from './chrome-export-flows.ts';
import { flowEvents, us } from './chrome-export-flows.ts';

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
export function chromeTraceChunks(
  trace: Trace,
  chunkChars: number = chromeChunkChars,
  withHead = true,
): Generator<string, void, undefined> {
  return chromeBatchChunks(traceRecordBatches(trace), chunkChars, withHead);
}

/**
 * `chromeTraceChunks` of a trace read a batch at a time (a stored file through `OpBatchReader`):
 * the same JSON to the byte, in memory bounded by a few batches and one window of flows, however
 * many ops the trace holds.
 */
export function* chromeBatchChunks(
  source: RecordBatches,
  chunkChars: number = chromeChunkChars,
  withHead = true,
): Generator<string, void, undefined> {
  if (withHead) {
    yield chromeTraceHead(source.trace.meta);
  }
  let chunk = '';
  let first = true;
  for (const event of chromeEvents(source)) {
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
function* chromeEvents(source: RecordBatches): Generator<string, void, undefined> {
  const trace = source.trace;
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
  const names = new Map<number, string>();
  const nameOf = (id: number): string => {
    let text = names.get(id);
    if (text === undefined) {
      text = JSON.stringify(trace.name(id));
      names.set(id, text);
    }
    return text;
  };
  for (const { firstIndex, ops } of source.opBatches()) {
    for (let j = 0; j < ops.count; j++) {
      const { pid, tid } = where[ops.track[j]!]!;
      const args = [`"op":${firstIndex + j}`];
      if (ops.bytes[j]! > 0) {
        args.push(`"bytes":${ops.bytes[j]}`);
      }
      if (ops.correlationId[j]! > 0) {
        args.push(`"correlation":${ops.correlationId[j]}`);
      }
      yield (
        `{"ph":"X","cat":"${opKindName(ops.kind[j]!)}","name":${nameOf(ops.nameId[j]!)},"pid":${pid},"tid":${tid},` +
        `"ts":${us(ops.startNs[j]!)},"dur":${us(ops.endNs[j]! - ops.startNs[j]!)},"args":{${args.join(',')}}}`
      );
    }
  }
  for (const { ranges } of source.rangeBatches()) {
    for (let j = 0; j < ranges.count; j++) {
      const { pid, tid } = where[ranges.track[j]!]!;
      const domain = ranges.domainId[j]! === 0 ? 'nvtx' : trace.name(ranges.domainId[j]!);
      yield (
        `{"ph":"X","cat":${JSON.stringify(domain)},"name":${nameOf(ranges.nameId[j]!)},"pid":${pid},"tid":${tid},` +
        `"ts":${us(ranges.startNs[j]!)},"dur":${us(ranges.endNs[j]! - ranges.startNs[j]!)}}`
      );
    }
  }
  yield* flowEvents(source, where);
}

function place(track: TrackInfo, index: number): Place {
  if (track.kind === 'host-thread') {
    return { pid: track.pid, tid: track.tid };
  }
  return { pid: gpuPidBase + track.pid * 64 + (track.deviceId % 64), tid: index + 1 };
}

function meta(name: string, pid: number, tid: number, value: string): string {
  return `{"ph":"M","name":"${name}","pid":${pid},"tid":${tid},"args":{"name":${JSON.stringify(value)}}}`;
}
