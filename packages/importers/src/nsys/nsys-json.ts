import { ImportError } from '../import-error.ts';
import { throwIfAborted } from '../io/chunks.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import type { LaunchTable } from '@streamscope/trace';
import type { NsysJsonResult } from './nsys-json-lines.ts';
import { NsysJsonLines } from './nsys-json-lines.ts';

const NEWLINE = 0x0a;
/** Longest line accepted: nsys lines are a few KiB; the string table line can be large. */
const maxLineBytes = 512 << 20;

/**
 * Reads `nsys export --type json`: one protobuf message per line, in any of the layouts nsys
 * has written (string table first or last, `--separate-strings`). Lines are cut from byte
 * chunks and mostly read by `fastScan` straight from bytes; anything unusual goes through
 * JSON.parse. Never holds more than one chunk plus one line of the input.
 */
export async function readNsysJson(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  builder: TraceBuilder,
  launches: LaunchTable,
  signal?: AbortSignal,
  reader: NsysJsonReader = 'fast',
  totalBytes?: number,
): Promise<NsysJsonResult> {
  if (reader === 'json-parse') {
    return readWithJsonParse(chunks, new NsysJsonLines(file, builder, launches), signal, file);
  }
  const lines = new NsysJsonLines(file, builder, launches);
  return readFast(chunks, lines, signal, file, (doneBytes) => {
    if (totalBytes !== undefined) {
      builder.projectOps(doneBytes, totalBytes);
    }
  });
}

/** `fast`: the byte scanner with JSON.parse for unusual lines; `json-parse`: every line through JSON.parse (for comparison). */
export type NsysJsonReader = 'fast' | 'json-parse';

/**
 * The naive reading, kept as the benchmark's baseline and as a cross-check in tests: chunks
 * decoded to text, split into lines, each line JSON.parsed and handed to the same sink.
 */
async function readWithJsonParse(
  chunks: AsyncIterable<Uint8Array>,
  reader: NsysJsonLines,
  signal: AbortSignal | undefined,
  file: string,
): Promise<NsysJsonResult> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let carry = '';
  for await (const chunk of chunks) {
    throwIfAborted(signal, file);
    let text: string;
    try {
      text = carry + decoder.decode(chunk, { stream: true });
    } catch {
      throw new ImportError({ file, line: reader.line + 1 }, 'invalid UTF-8 at or after this line');
    }
    const lines = text.split('\n');
    carry = lines.pop() ?? '';
    for (const line of lines) {
      reader.line++;
      reader.readText(line);
    }
  }
  if (carry !== '') {
    reader.line++;
    reader.readText(carry, true);
  }
  return reader.finish();
}

/** Reads every line of `chunks` into `reader`: most by the fast scanner, the others by JSON.parse. */
export async function readFast(
  chunks: AsyncIterable<Uint8Array>,
  reader: NsysJsonLines,
  signal: AbortSignal | undefined,
  file: string,
  onChunkRead: (doneBytes: number) => void,
): Promise<NsysJsonResult> {
  let carry: Uint8Array | undefined;
  let doneBytes = 0;
  for await (const chunk of chunks) {
    throwIfAborted(signal, file);
    onChunkRead(doneBytes);
    doneBytes += chunk.length;
    let from = 0;
    if (carry !== undefined) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl < 0) {
        carry = join(carry, chunk, chunk.length);
        if (carry.length > maxLineBytes) {
          throw new ImportError(
            { file, line: reader.line + 1 },
            `a line is longer than ${maxLineBytes} bytes`,
          );
        }
        continue;
      }
      const line = join(carry, chunk, nl);
      carry = undefined;
      reader.line++;
      reader.readLine(line, 0, line.length);
      from = nl + 1;
    }
    from = reader.readLines(chunk, from);
    if (from < chunk.length) {
      carry = chunk.slice(from);
    }
  }
  if (carry !== undefined) {
    reader.line++;
    reader.readLastLine(carry);
  }
  return reader.finish();
}

function join(a: Uint8Array, b: Uint8Array, bEnd: number): Uint8Array {
  const out = new Uint8Array(a.length + bEnd);
  out.set(a);
  out.set(b.subarray(0, bEnd), a.length);
  return out;
}
