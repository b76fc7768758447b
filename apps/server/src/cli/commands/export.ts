import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exportChromeTrace, importTrace } from '@streamscope/importers';
import type { Command } from '../command.ts';
import { UsageError } from '../command.ts';
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
    const { trace, warnings } = await importTrace(
      createReadStream(file, { highWaterMark: 1 << 20 }),
      {
        fileName: path.basename(file),
      },
    );
    for (const warning of warnings) {
      io.err(`warning: ${warning}`);
    }
    const json = exportChromeTrace(trace);
    const out = oneValue(flags, 'out');
    if (out === undefined) {
      io.out(json.trimEnd());
    } else {
      await writeFile(out, json);
      io.err(
        `wrote ${out} (${json.length} bytes, ${trace.ops.count} ops, ${trace.flows.count} flows)`,
      );
    }
    return 0;
  },
};
