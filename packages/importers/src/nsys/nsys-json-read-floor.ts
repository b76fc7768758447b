import { TraceBuilder } from '../trace-builder.ts';
import { readFast } from './nsys-json.ts';
import { NsysJsonLines } from './nsys-json-lines.ts';
import { NsysEventSink } from './nsys-events.ts';

/** Drops every event: what the reader costs before an event is turned into an op or a range. */
class DroppedEvents extends NsysEventSink {
  dropped = 0;

  override handle(): void {
    this.dropped++;
  }
}

/**
 * For benchmarks: the reading part of an nsys JSON import alone. Every line is cut from the chunks
 * and read as the importer reads it (the byte scanner with its key templates, JSON.parse for the
 * lines it hands over, the string table kept), but no event reaches the trace: no op, lane or
 * range is made and nothing is built. Returns the events read.
 */
export async function nsysJsonReadFloor(chunks: AsyncIterable<Uint8Array>): Promise<number> {
  const builder = new TraceBuilder({});
  const sink = new DroppedEvents(builder, builder.launchTable(), 'floor');
  const lines = new NsysJsonLines('floor', builder, builder.launchTable(), sink);
  await readFast(chunks, lines, undefined, 'floor', () => undefined);
  return sink.dropped;
}
