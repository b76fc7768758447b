import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ImportResult } from '@streamscope/importers';
import {
  ImportLimitError,
  importPeakBytesPerOp,
  importSummary,
  mergeRanks,
} from '@streamscope/importers';
import { defaultNsysTimeoutMs } from '@streamscope/importers/node';
import type { Trace } from '@streamscope/trace';
import { formatDurationNs } from '@streamscope/trace';
import { writeTraceFileAtomic } from '../../storage/atomic-file.ts';
import { defaultImportBytes, defaultImportOps } from '../../config.ts';
import { formatMiB, keepAllAdvice } from '../../imports/import-failures.ts';
import type { Command, CommandIo } from '../command.ts';
import { UsageError } from '../command.ts';
import { importFile } from '../import-file.ts';
import { intValue, oneValue, parseFlags } from '../parse-flags.ts';

const usage = [
  'usage: pnpm streamscope import FILE [FILE …] [--out TRACE | -o TRACE] [--summary] [--max-ops N]',
  '                                [--max-bytes N] [--nsys PATH] [--nsys-timeout-s N]',
  '',
  '  FILE         nsys export (--type json or sqlite), Chrome/PyTorch-kineto trace JSON, or',
  '               any of them gzip-compressed; the format is read from the content. An Nsight',
  '               Systems report (.nsys-rep, .qdrep) is exported to SQLite by nsys first, into a',
  '               private temporary folder removed afterwards',
  '  FILE FILE …  several traces of one distributed job (one per rank: kineto distributedInfo,',
  '               or nsys processes) open as one trace with a group per rank, lined up on the',
  "               files' wall clock",
  '  --out TRACE  write the imported trace as a .sstrace file',
  '  --summary    print one JSON object on the last line: format, producer, devices, gpuStreams,',
  '               hostThreads, counts, copyBytes, unknownSizeOps, spanNs, warnings (and, for',
  '               several files, ranks: rank, file, pids, shiftNs, clocked)',
  `  --max-ops    keep at most N ops and ranges, all files together (default ${defaultImportOps}: 60% of this machine's memory`,
  `               at ${importPeakBytesPerOp} bytes an op, the server's limit too); a SQLite export over it is`,
  '               refused before its rows are read, any other file when the op past it arrives',
  '  --max-bytes  refuse inputs larger than N bytes, compressed or inflated (default: none; an',
  '               import streams); a larger file is refused before it is read',
  '  --nsys PATH  the nsys that exports reports (default: NSYS, else nsys on PATH, else the',
  '               newest that Nsight Systems, a CUDA toolkit or Nsight Compute installed under',
  '               /opt/nvidia or /usr/local/cuda*)',
  '  --nsys-timeout-s N',
  `               longest one report's export may run, in seconds (default ${defaultNsysTimeoutMs / 1000})`,
].join('\n');

/** `streamscope import`: reads exports into a trace, streaming each file in chunks. */
export const importCommand: Command = {
  name: 'import',
  summary: 'Import Nsight Systems or PyTorch/kineto exports (several ranks: one trace)',
  usage,
  async run(args, io) {
    // `-o` is the short form of `--out`.
    const flags = parseFlags(
      args.map((a) => (a === '-o' ? '--out' : a)),
      { values: ['out', 'max-bytes', 'max-ops', 'nsys', 'nsys-timeout-s'], switches: ['summary'] },
    );
    const files = flags.positional;
    if (files.length === 0) {
      throw new UsageError('give at least one FILE to import');
    }
    const maxBytes = intValue(flags, 'max-bytes', 1, Number.MAX_SAFE_INTEGER) ?? defaultImportBytes;
    const maxOps = intValue(flags, 'max-ops', 1, Number.MAX_SAFE_INTEGER) ?? defaultImportOps;
    const nsysPath = oneValue(flags, 'nsys');
    const nsysTimeoutS = intValue(flags, 'nsys-timeout-s', 1, 7 * 24 * 3600);
    const sizes: number[] = [];
    // Every file's size against the limit before any is read: a refusal comes at once.
    for (const file of files) {
      const size = await stat(file).then(
        (s) => s.size,
        () => {
          throw new UsageError(`cannot read ${file}`);
        },
      );
      if (size > maxBytes) {
        throw new Error(
          `${file} is ${size} bytes, over the ${maxBytes}-byte limit for imports${maxBytes >= 2 ** 20 ? ` (${formatMiB(maxBytes)})` : ''}; --max-bytes N raises it`,
        );
      }
      sizes.push(size);
    }
    const imported: { file: string; size: number; result: ImportResult }[] = [];
    const nsys = {
      ...(nsysPath === undefined ? {} : { optionPath: nsysPath }),
      ...(nsysTimeoutS === undefined ? {} : { timeoutMs: nsysTimeoutS * 1000 }),
    };
    // Every file's trace is held until the merge: the limit applies to them together, so each
    // file gets the room the files before it left.
    let kept = 0;
    for (const [i, file] of files.entries()) {
      const size = sizes[i]!;
      const before =
        kept === 0
          ? ''
          : ` (what --max-ops ${maxOps} leaves after the ${kept} ops and ranges of ${imported.map((x) => path.basename(x.file)).join(', ')})`;
      if (kept >= maxOps) {
        throw new Error(
          `${path.basename(file)}: no room left for its ops${before}; --max-ops N raises it`,
        );
      }
      // SQLite (gzip'd too, or a report's export) is read from disk page by page; the rest streams.
      const result = await importFile(
        file,
        {
          fileName: path.basename(file),
          maxBytes,
          maxOps: maxOps - kept,
        },
        undefined,
        nsys,
      ).catch((error: unknown) => {
        if (!(error instanceof ImportLimitError)) {
          throw error;
        }
        // The room left is not the limit: say what the limit is to be only for one file.
        const advice = kept === 0 ? keepAllAdvice(error) : undefined;
        throw new Error(
          advice === undefined
            ? `${error.message}${error.unit === 'ops' ? before : ''}; --max-${error.unit === 'ops' ? 'ops' : 'bytes'} N raises it`
            : `${error.message}; --max-ops ${advice.maxOps} or more keeps it all: ${advice.memory}`,
        );
      });
      kept += result.trace.ops.count + result.trace.ranges.count;
      imported.push({ file, size, result });
    }
    const out = oneValue(flags, 'out');
    const wrote = out === undefined ? '' : `; wrote ${out}`;
    let trace: Trace;
    let extra: Record<string, unknown> = {};
    if (imported.length === 1) {
      const { file, size, result } = imported[0]!;
      trace = result.trace;
      printWarnings(io, result.warnings);
      io.out(`${path.basename(file)} (${size} bytes): ${describe(trace)}${wrote}`);
    } else {
      for (const { file, size, result } of imported) {
        io.out(`${path.basename(file)} (${size} bytes): ${describe(result.trace)}`);
      }
      const merged = mergeRanks(
        imported.map(({ file, result }) => ({
          trace: result.trace,
          fileName: path.basename(file),
        })),
      );
      trace = merged.trace;
      printWarnings(io, merged.warnings);
      const ranks = merged.ranks
        .map(
          (r) => `rank ${r.rank} ${r.fileName}${r.clocked ? ` +${r.shiftNs} ns` : ' (no clock)'}`,
        )
        .join(', ');
      io.out(`merged ${merged.ranks.length} ranks (${ranks}): ${describe(trace)}${wrote}`);
      extra = { ranks: merged.ranks };
    }
    if (out !== undefined) {
      writeTraceFileAtomic(trace, out);
    }
    if (flags.switches.has('summary')) {
      io.out(JSON.stringify({ ...importSummary(trace), ...extra }));
    }
    return 0;
  },
};

function printWarnings(io: CommandIo, warnings: readonly string[]): void {
  for (const warning of warnings) {
    io.err(`warning: ${warning}`);
  }
}

function describe(trace: Trace): string {
  const summary = importSummary(trace);
  const c = summary.counts;
  return (
    `${summary.format}, ${summary.producer}; ` +
    `${summary.devices} device(s), ${summary.gpuStreams} GPU stream(s), ${summary.hostThreads} host thread(s); ` +
    `${c.kernel} kernels, ${c.memcpy} copies, ${c.memset} memsets, ${c.sync} syncs, ${c.graph} graph launches, ` +
    `${c.event} event records, ${c.api} API calls` +
    (c.other === 0 ? '' : `, ${c.other} other ops`) +
    ` (${trace.ops.count} ops), ${c.range} ranges over ${formatDurationNs(summary.spanNs)}` +
    (summary.unknownSizeOps === 0
      ? ''
      : `; ${summary.unknownSizeOps} copies/memsets of unknown size`)
  );
}
