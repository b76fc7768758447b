import {
  TraceDecoder,
  TraceEncoder,
  opKindName,
  saveTrace,
  syntheticTrace,
} from '@streamscope/trace';
import type { Report } from './report.ts';
import { medianMs } from './report.ts';

const opCount = 1_000_000;

/** The same ops as JSON objects, the way a naive JSON protocol would ship them. */
function asJson(trace: ReturnType<typeof syntheticTrace>): string {
  const c = trace.ops.columns();
  const objects = [];
  for (let i = 0; i < c.count; i++) {
    objects.push({
      startNs: c.startNs[i],
      endNs: c.endNs[i],
      track: c.track[i],
      kind: opKindName(c.kind[i]!),
      name: trace.strings.get(c.nameId[i]!),
      bytes: c.bytes[i],
      memKinds: c.memKinds[i],
      correlationId: c.correlationId[i],
      refId: c.refId[i],
      flags: c.flags[i],
    });
  }
  return JSON.stringify(objects);
}

export async function run(report: Report): Promise<void> {
  const trace = syntheticTrace(opCount);
  trace.ops.trim();
  // Columns plus the per-track start index: what every op costs while a trace is open.
  report('trace.memory_bytes_per_op', trace.ops.byteSize() / opCount, 'B');

  const encoded = new TraceEncoder(trace).encodeNew();
  report('codec.encoded_bytes_per_op', encoded.length / opCount, 'B');

  const json = asJson(trace);
  const decodeMs = medianMs(() => {
    new TraceDecoder().apply(encoded);
  });
  const jsonMs = medianMs(() => {
    JSON.parse(json);
  });
  report('codec.decode_ms_1m', decodeMs, 'ms');
  report('codec.json_parse_ms_1m', jsonMs, 'ms');
  report('codec.decode_vs_json_parse', jsonMs / decodeMs, 'x');

  const file = saveTrace(trace);
  report('codec.file_bytes_per_op', file.length / opCount, 'B');
  await Promise.resolve();
}
