import { closeSync, createWriteStream, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { chromeBatchChunks } from '@streamscope/importers';
import type { RecordBatches } from '@streamscope/trace';
import { OpBatchReader, batchMagic, traceRecordBatches } from '@streamscope/trace';
import { descriptorFile } from '../../workers/load-trace-file.ts';
import type { Command, CommandIo } from '../command.ts';
import { UsageError } from '../command.ts';
import { importFile } from '../import-file.ts';
import { oneValue, parseFlags } from '../parse-flags.ts';

const usage = [
  'usage: pnpm streamscope export TRACE --format chrome [--out FILE]',
  '',
  '  TRACE          a .sstrace file, or any file `streamscope import` reads',
  '  --format       chrome: Chrome trace event JSON that Perfetto and chrome://tracing open',
  '                 (GPU streams and host threads as tracks, API→GPU and event links as arrows)',
  '  --out FILE     write there instead of standard output',
].join('\n');

/** `streamscope export`: a trace as Chrome trace JSON. */
export const exportCommand: Command = {
  name: 'export',
  summary: 'Export a trace as Chrome trace JSON (opens in Perfetto)',
  usage,
  async run(args, io) {
    const flags = parseFlags(args, { values: ['format', 'out'] });
    if (flags.positional.length !== 1) {
      throw new UsageError('give exactly one TRACE to export');
    }
    const format = oneValue(flags, 'format');
    if (format !== 'chrome') {
      throw new UsageError(
        format === undefined
          ? '--format is required (chrome)'
          : `unknown --format '${format}' (chrome)`,
      );
    }
    const file = flags.positional[0]!;
    const fd = openSync(file, 'r');
    try {
      const source = await exportSource(file, fd);
      for (const warning of source.warnings) {
        io.err(`warning: ${warning}`);
      }
      // Streamed a chunk at a time at the pace of the output: an export of any size, in the
      // memory of one chunk (the whole JSON of a 2M-op trace outgrows V8's longest string).
      const { batches } = source;
      const out = oneValue(flags, 'out');
      if (out === undefined) {
        await writeStdout(chromeBatchChunks(batches), io);
      } else {
        let bytes = 0;
        const counted = function* (): Generator<Buffer> {
          for (const chunk of chromeBatchChunks(batches)) {
            const encoded = Buffer.from(chunk, 'utf8');
            bytes += encoded.length;
            yield encoded;
          }
        };
        await pipeline(Readable.from(counted()), createWriteStream(out));
        const { ops, flows } = batches.counts;
        io.err(`wrote ${out} (${bytes} bytes, ${ops} ops, ${flows} flows)`);
      }
    } finally {
      closeSync(fd);
    }
    return 0;
  },
};

/**
 * What to export: a stored trace (`.sstrace`, by its magic) read from the file a batch at a time,
 * so memory does not grow with the trace; any other file as `import` reads it (a SQLite export
 * page by page from disk, never whole in memory).
 */
async function exportSource(
  file: string,
  fd: number,
): Promise<{ batches: RecordBatches; warnings: readonly string[] }> {
  const head = new Uint8Array(4);
  const isStored =
    readSync(fd, head, 0, 4, 0) === 4 &&
    new DataView(head.buffer).getUint32(0, true) === batchMagic;
  if (isStored) {
    const reader = await OpBatchReader.open(descriptorFile(fd, file));
    return { batches: reader, warnings: reader.trace.meta.warnings ?? [] };
  }
  const { trace, warnings } = await importFile(file, { fileName: path.basename(file) });
  return { batches: traceRecordBatches(trace), warnings };
}

/** Chunks to standard output: raw where the CLI can stream, else line by line through `out`. */
async function writeStdout(chunks: Iterable<string>, io: CommandIo): Promise<void> {
  if (io.write !== undefined) {
    for (const chunk of chunks) {
      await io.write(chunk);
    }
    return;
  }
  let partial = '';
  for (const chunk of chunks) {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      io.out(line);
    }
  }
  if (partial !== '') {
    io.out(partial);
  }
}
