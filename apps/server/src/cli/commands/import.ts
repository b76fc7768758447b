import { createReadStream } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { importSummary, importTrace } from '@streamscope/importers';
import { formatDurationNs, saveTrace } from '@streamscope/trace';
import type { Command } from '../command.ts';
import { UsageError } from '../command.ts';
import { intValue, oneValue, parseFlags } from '../parse-flags.ts';

const usage = [
  'usage: pnpm streamscope import FILE [--out TRACE] [--summary] [--max-bytes N]',
  '',
  '  FILE         nsys export (--type json or sqlite), Chrome/PyTorch-kineto trace JSON, or',
  '               any of them gzip-compressed; the format is read from the content',
  '  --out TRACE  write the imported trace as a .sstrace file',
  '  --summary    print one JSON object on the last line: format, producer, devices, gpuStreams,',
  '               hostThreads, counts, copyBytes, unknownSizeOps, spanNs, warnings',
  '  --max-bytes  refuse inputs larger than N bytes, compressed or inflated (default 2 GiB)',
].join('\n');

/** `streamscope import`: reads an export into a trace, streaming the file in chunks. */
export const importCommand: Command = {
  name: 'import',
  summary: 'Import an Nsight Systems or PyTorch/kineto export into a trace',
  usage,
  async run(args, io) {
    const flags = parseFlags(args, { values: ['out', 'max-bytes'], switches: ['summary'] });
    if (flags.positional.length !== 1) {
      throw new UsageError('give exactly one FILE to import');
    }
    const file = flags.positional[0]!;
    const maxBytes = intValue(flags, 'max-bytes', 1, Number.MAX_SAFE_INTEGER);
    const size = await stat(file).then(
      (s) => s.size,
      () => {
        throw new UsageError(`cannot read ${file}`);
      },
    );
    const { trace, warnings } = await importTrace(
      createReadStream(file, { highWaterMark: 1 << 20 }),
      {
        fileName: path.basename(file),
        ...(maxBytes === undefined ? {} : { maxBytes }),
      },
    );
    for (const warning of warnings) {
      io.err(`warning: ${warning}`);
    }
    const out = oneValue(flags, 'out');
    if (out !== undefined) {
      await writeFile(out, saveTrace(trace));
    }
    const summary = importSummary(trace);
    const c = summary.counts;
    io.out(
      `${path.basename(file)} (${size} bytes): ${summary.format}, ${summary.producer}; ` +
        `${summary.devices} device(s), ${summary.gpuStreams} GPU stream(s), ${summary.hostThreads} host thread(s); ` +
        `${c.kernel} kernels, ${c.memcpy} copies, ${c.memset} memsets, ${c.sync} syncs, ${c.graph} graph launches, ` +
        `${c.api} API calls, ${c.range} ranges over ${formatDurationNs(summary.spanNs)}` +
        (summary.unknownSizeOps === 0
          ? ''
          : `; ${summary.unknownSizeOps} copies/memsets of unknown size`) +
        (out === undefined ? '' : `; wrote ${out}`),
    );
    if (flags.switches.has('summary')) {
      io.out(JSON.stringify(summary));
    }
    return 0;
  },
};
