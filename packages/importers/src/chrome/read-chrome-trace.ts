import type { LaunchTable } from '@streamscope/trace';
import { throwIfAborted } from '../io/chunks.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { ChromeEventSink, kinetoTopKeys } from './chrome-sink.ts';
import { JsonEventSplitter } from './json-splitter.ts';

/**
 * Reads a Chrome trace (`{"traceEvents":[…]}` or a bare, possibly unterminated `[…]`) into the
 * builder as its chunks arrive (`totalBytes`, when known, sizes the op staging as it goes), and returns the producer ("kineto schema 1", "Chrome trace
 * events", …). Rejects with ImportError when the file keeps nothing.
 */
export async function readChromeTrace(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  builder: TraceBuilder,
  launches: LaunchTable,
  signal: AbortSignal | undefined,
  totalBytes?: number,
): Promise<string> {
  const sink = new ChromeEventSink(builder, launches, file);
  const splitter = new JsonEventSplitter(
    file,
    {
      event: (e, index, where) => sink.event(e, index, where),
      topValue: (key, value, bytes) => sink.topValue(key, value, bytes),
    },
    new Set(kinetoTopKeys),
  );
  let doneBytes = 0;
  for await (const chunk of chunks) {
    throwIfAborted(signal, file);
    if (totalBytes !== undefined) {
      // The op staging sized from how far the file is, as nsys JSON's: no blocks to join at build.
      builder.projectOps(doneBytes, totalBytes);
    }
    doneBytes += chunk.length;
    splitter.push(chunk);
  }
  const result = splitter.end();
  if (result.unterminated) {
    builder.warnings.add(
      result.droppedTailBytes > 0
        ? `the trace is cut off: the last event (${result.droppedTailBytes} bytes) was dropped, ${result.events} events read`
        : `the trace is not terminated (allowed for Chrome traces); ${result.events} events read`,
    );
  }
  return sink.finish();
}
