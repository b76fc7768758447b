import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as TraceModule from '@streamscope/trace';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mixedTrace } from '../../test-support/mixed-trace.ts';
import { windowOf } from '../../storage/trace-window.ts';
import type * as LoadModule from '../load-trace-file.ts';
import { writeTilePyramid } from '../tile-pyramid.ts';
import { cutTraceFile } from './window-task.ts';

// Every decode on this thread: of a stored trace file (whole, batch by batch), and of codec bytes
// (with the ops each decoded trace holds).
const decodes = vi.hoisted(() => ({ traceFiles: 0, opsDecoded: [] as number[] }));
vi.mock('../load-trace-file.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof LoadModule>();
  return {
    ...actual,
    loadTraceFile: (...args: Parameters<typeof actual.loadTraceFile>) => {
      decodes.traceFiles++;
      return actual.loadTraceFile(...args);
    },
  };
});
vi.mock('@streamscope/trace', async (importOriginal) => {
  const actual = await importOriginal<typeof TraceModule>();
  return {
    ...actual,
    loadTrace: (bytes: Uint8Array) => {
      const trace = actual.loadTrace(bytes);
      decodes.opsDecoded.push(trace.ops.count);
      return trace;
    },
  };
});

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'streamscope-window-task-'));
  decodes.traceFiles = 0;
  decodes.opsDecoded = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a zoom window of a stored trace', () => {
  it('is read from the tiles file beside it: no whole-trace decode, the bytes of the cut trace', async () => {
    const codec = await vi.importActual<typeof TraceModule>('@streamscope/trace');
    const trace = mixedTrace(20_000);
    const tracePath = path.join(dir, 'big.sstrace');
    await writeFile(tracePath, codec.saveTrace(trace));
    writeTilePyramid(trace, path.join(dir, 'big.tiles'));
    const ref = { path: tracePath, partial: false, opCount: trace.ops.count };
    const window = { fromNs: 7_000_000, toNs: 7_250_000 };

    const bytes = await cutTraceFile(ref, window);

    expect(decodes.traceFiles).toBe(0);
    // Only the trace's structure was decoded (the tiles file's base, with no op).
    expect(decodes.opsDecoded).toEqual([0]);
    const stored = codec.loadTrace(codec.saveTrace(trace));
    expect(Buffer.from(bytes).equals(Buffer.from(codec.saveTrace(windowOf(stored, window))))).toBe(
      true,
    );
  });

  it('decodes the trace whole when it has no tiles file (a small trace never opened tiled)', async () => {
    const codec = await vi.importActual<typeof TraceModule>('@streamscope/trace');
    const trace = mixedTrace(2000);
    const tracePath = path.join(dir, 'small.sstrace');
    await writeFile(tracePath, codec.saveTrace(trace));
    const window = { fromNs: 700_000, toNs: 725_000 };

    const bytes = await cutTraceFile({ path: tracePath, partial: false }, window);

    expect(decodes.traceFiles).toBe(1);
    expect(codec.loadTrace(bytes).ops.count).toBe(windowOf(trace, window).ops.count);
  });
});
