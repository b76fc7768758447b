import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { summarizeRun } from '@streamscope/analysis';
import type { Backend, BackendChoice, RunRequest } from '@streamscope/executor';
import { InvalidRunRequest, createBackends, resolveAuto } from '@streamscope/executor';
import type { DeviceProfile } from '@streamscope/simulator';
import { CalibrationError, profileFromCalibration } from '@streamscope/simulator';
import type { Trace } from '@streamscope/trace';
import { formatDurationNs } from '@streamscope/trace';
import { writeTraceFileAtomic } from '../../storage/atomic-file.ts';
import { PresetError, buildPreset } from '@streamscope/workload';
import type { Command } from '../command.ts';
import { UsageError } from '../command.ts';
import type { ParsedFlags } from '../parse-flags.ts';
import { intValue, oneValue, parseFlags } from '../parse-flags.ts';
import { loadTraceFile } from '../../workers/load-trace-file.ts';

const usage = [
  'usage: pnpm streamscope run (WORKLOAD.json | --preset NAME [--set PARAM=VALUE ...] | --replay TRACE)',
  '         [--backend cuda|sim|replay|auto] [--profile NAME] [--calibration FILE] [--device N]',
  '         [--pace fast|realtime] [--time-limit MS] [--out FILE] [--summary]',
  '',
  '  --backend      auto (default): cuda when a GPU is there, else sim; says which it picked',
  '  --profile      sim device profile (c1060, c2050, k20c, h100, h200, h100x2…h200x8, h100-pcie-x4; default h100)',
  '  --calibration  sim: a profile from `streamscope calibrate` output (used unless --profile)',
  "  --device       cuda: device ordinal of the plan's first device (default 0)",
  '  --replay       replay backend: the stored trace (.sstrace) to replay',
  '  --pace         fast (default) or realtime (sim and replay at GPU speed)',
  '  --time-limit   the watchdog ends the run after MS milliseconds (default 120000)',
  '  --out FILE     write the trace as a .sstrace file',
  '  --summary      print one JSON object on the last line: makespanNs (GPU span), gpuOpCount,',
  '                 hostOpCount, op counts per kind, busy time per engine, copyComputeOverlap',
  '                 (null without copies), commComputeOverlap (null without collectives)',
].join('\n');

const choices: readonly BackendChoice[] = ['cuda', 'sim', 'replay', 'auto'];

async function readJson(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${what} ${file}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${what} ${file} is not JSON: ${(error as Error).message}`);
  }
}

function presetParams(flags: ParsedFlags): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of flags.values.get('set') ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw new UsageError(`--set takes PARAM=VALUE, got '${pair}'`);
    }
    params[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return params;
}

async function workloadOf(flags: ParsedFlags, backend: BackendChoice): Promise<unknown> {
  const preset = oneValue(flags, 'preset');
  const file = flags.positional[0];
  if (flags.positional.length > 1) {
    throw new UsageError('give at most one WORKLOAD.json');
  }
  if (preset !== undefined && file !== undefined) {
    throw new UsageError('give a WORKLOAD.json or --preset, not both');
  }
  if (preset !== undefined) {
    try {
      return buildPreset(preset, presetParams(flags));
    } catch (error) {
      if (error instanceof PresetError) {
        throw new UsageError(error.message);
      }
      throw error;
    }
  }
  if (flags.values.has('set')) {
    throw new UsageError('--set needs --preset');
  }
  if (file !== undefined) {
    return readJson(file, 'workload');
  }
  if (backend === 'replay') {
    return null;
  }
  throw new UsageError(
    'give a WORKLOAD.json, --preset NAME or, with --backend replay, --replay TRACE',
  );
}

/** `streamscope run`: one workload on one backend, its trace saved and summarized. */
export const runCommand: Command = {
  name: 'run',
  summary: 'Run a workload or preset on a backend and save its trace',
  usage,
  async run(args, io) {
    const flags = parseFlags(args, {
      values: [
        'preset',
        'backend',
        'profile',
        'calibration',
        'device',
        'replay',
        'pace',
        'time-limit',
        'out',
      ],
      repeatable: ['set'],
      switches: ['summary'],
    });
    const replayFile = oneValue(flags, 'replay');
    const choice = (oneValue(flags, 'backend') ??
      (replayFile !== undefined ? 'replay' : 'auto')) as BackendChoice;
    if (!choices.includes(choice)) {
      throw new UsageError(`--backend must be one of ${choices.join(', ')}, got '${choice}'`);
    }
    if (choice === 'replay' && replayFile === undefined) {
      throw new UsageError('--backend replay needs --replay TRACE');
    }
    const pace = oneValue(flags, 'pace') ?? 'fast';
    if (pace !== 'fast' && pace !== 'realtime') {
      throw new UsageError(`--pace must be fast or realtime, got '${pace}'`);
    }
    const timeLimitMs = intValue(flags, 'time-limit', 1, 24 * 3600 * 1000) ?? 120_000;
    const device = intValue(flags, 'device', 0, 64);
    const workload = await workloadOf(flags, choice);
    const calibrationFile = oneValue(flags, 'calibration');
    const extraProfiles: Record<string, DeviceProfile> = {};
    if (calibrationFile !== undefined) {
      const json = await readJson(calibrationFile, 'calibration');
      try {
        extraProfiles['calibrated'] = profileFromCalibration(json);
      } catch (error) {
        if (error instanceof CalibrationError) {
          throw new UsageError(`calibration ${calibrationFile}: ${error.message}`);
        }
        throw error;
      }
    }
    const backends = createBackends({ extraProfiles });

    let backend: Backend;
    if (choice === 'auto') {
      const picked = await resolveAuto(backends);
      io.err(`backend: ${picked.reason}`);
      backend = picked.backend;
    } else {
      backend = backends[choice];
      if (choice === 'cuda') {
        const status = await backend.status();
        if (!status.available) {
          io.err(
            `streamscope run: the cuda backend is unavailable: ${status.reason ?? 'unknown reason'}`,
          );
          return 1;
        }
      }
    }
    let replayOf: Trace | undefined;
    if (replayFile !== undefined) {
      try {
        replayOf = await loadTraceFile({ path: replayFile, partial: false });
      } catch (error) {
        throw new UsageError(`cannot replay ${replayFile}: ${(error as Error).message}`);
      }
    }
    const profile =
      oneValue(flags, 'profile') ?? (calibrationFile !== undefined ? 'calibrated' : undefined);
    const target =
      backend.name === 'sim'
        ? profile
        : backend.name === 'cuda' && device !== undefined
          ? String(device)
          : undefined;
    const request: RunRequest = {
      workload,
      timeLimitMs,
      pace,
      ...(target !== undefined ? { target } : {}),
      ...(replayOf !== undefined ? { replayOf } : {}),
    };
    let handle;
    try {
      handle = backend.start(request);
    } catch (error) {
      if (error instanceof InvalidRunRequest) {
        io.err('streamscope run: the workload is invalid:');
        for (const issue of error.issues) {
          io.err(`  ${issue.path}: ${issue.message}`);
        }
        return 1;
      }
      if (error instanceof RangeError) {
        throw new UsageError(error.message);
      }
      throw error;
    }
    const stop = (): void => handle.cancel();
    process.once('SIGINT', stop);
    const end = await handle.done;
    process.removeListener('SIGINT', stop);
    const trace = handle.trace;
    const out = oneValue(flags, 'out');
    if (out !== undefined) {
      writeTraceFileAtomic(trace, out);
    }
    for (const warning of trace.meta.warnings ?? []) {
      io.err(`warning: ${warning}`);
    }
    // The header counts what the summary counts: GPU ops (the sum of opCounts) over the GPU span
    // (makespanNs), with host calls named apart, not every op over the trace's whole span.
    const summary = summarizeRun(trace);
    io.out(
      `${trace.meta.title}: ${end.status} on ${backend.name}` +
        (end.status === 'failed' ? ` (${end.reason})` : '') +
        `; ${summary.gpuOpCount} GPU ops (+${summary.hostOpCount} host calls), GPU span ${formatDurationNs(summary.makespanNs)}, timing ${trace.meta.timingMethod}` +
        (out === undefined ? '' : `; wrote ${out}`),
    );
    if (flags.switches.has('summary')) {
      io.out(JSON.stringify(summary));
    }
    return end.status === 'finished' ? 0 : 1;
  },
};
