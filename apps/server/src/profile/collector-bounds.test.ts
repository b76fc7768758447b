import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTrace } from '@streamscope/trace';
import type { TraceEntry } from '../api-types.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { defaultCollectorCheckPath, defaultCollectorPath } from './collector-paths.ts';

// Issue #19: the collector's memory is bounded by design. Each flood (the self-test's
// `flood WHAT N`, inject-selftest-floods.cc) pushes one table of native/src/collector-bounds.h
// past its bound through the real recorder, sink and transport; `footprint` prints every
// table's entries held and its bound. The bounds below are those constants.
const built = existsSync(defaultCollectorPath) && existsSync(defaultCollectorCheckPath);

const bound = {
  gpuByCorrelation: 65_536,
  waitsBySyncId: 16_384,
  linksPerKey: 64,
  openRanges: 16_384,
  strings: 131_072,
  tracks: 16_384,
  threads: 1024,
  streamsDescribed: 32_768,
  launchConfigs: 65_536,
  issued: 262_144,
  pendingWaits: 524_288,
};

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

async function runCheck(script: string, env: Record<string, string>, dir: string): Promise<Ran> {
  const file = path.join(dir, 'script.txt');
  await writeFile(file, script);
  const child = spawn(defaultCollectorCheckPath, [defaultCollectorPath, file], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

interface Footprint {
  readonly rssKb: number;
  /** table -> [held, bound] */
  readonly tables: ReadonlyMap<string, readonly [number, number]>;
  readonly counts: Readonly<Record<string, number>>;
}

/** Every `footprint` block the self-test printed, in order. */
function footprints(stdout: string): Footprint[] {
  const out: Footprint[] = [];
  let current: { rssKb: number; tables: Map<string, [number, number]> } | undefined;
  for (const line of stdout.split('\n')) {
    const head = /^footprint rssKb=(\d+)$/.exec(line);
    const row = /^ {2}(\w+) (\d+) (\d+)$/.exec(line);
    if (head !== null) {
      current = { rssKb: Number(head[1]), tables: new Map() };
    } else if (row !== null && current !== undefined) {
      current.tables.set(row[1]!, [Number(row[2]), Number(row[3])]);
    } else if (line.startsWith('counts ') && current !== undefined) {
      const counts: Record<string, number> = {};
      for (const pair of line.slice('counts '.length).split(' ')) {
        const [key, value] = pair.split('=');
        counts[key!] = Number(value);
      }
      out.push({ ...current, counts });
      current = undefined;
    }
  }
  return out;
}

function expectAllWithinBounds(f: Footprint): void {
  for (const [name, [held, limit]] of f.tables) {
    expect(held, `${name} holds ${held} entries, its bound is ${limit}`).toBeLessThanOrEqual(limit);
  }
}

function held(f: Footprint, table: string): number {
  const row = f.tables.get(table);
  expect(row, `footprint has no row ${table}`).toBeDefined();
  return row![0];
}

describe.skipIf(!built)("the collector's bounded tables under a flood (native self-test)", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'streamscope-bounds-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps 10M stream waits on one event record that never arrives at 64 links, memory flat, every lost link reported', async () => {
    // One event recorded once and waited on 10M times, its record never delivered: before the
    // bound, each wait's op index was kept for the record's flows (40 MB and growing).
    const total = 10_000_000;
    const first = 1_000_000;
    const ran = await runCheck(
      `flood waits-one-event ${first}\nfootprint\nflood waits-one-event ${total - first}\nfootprint\nexit\n`,
      { STREAMSCOPE_PROFILE_OUT: 'flood.sstrace' },
      dir,
    );
    expect(ran.code).toBe(0);
    const [after1M, after10M] = footprints(ran.stdout);
    expect(after10M).toBeDefined();
    expectAllWithinBounds(after10M!);
    expect(held(after1M!, 'waitLinksOnOneKey')).toBe(bound.linksPerKey);
    expect(held(after10M!, 'waitLinksOnOneKey')).toBe(bound.linksPerKey);
    // 9M more records moved the resident set by less than 16 MiB (the unbounded list alone
    // grew by 36 MB over them); the tables' entries did not move at all.
    expect(after10M!.rssKb - after1M!.rssKb).toBeLessThan(16 * 1024);
    expect([...after10M!.tables]).toEqual([...after1M!.tables]);
    // Each wait past the 64th on that event lost its record→wait arrow: counted, reported.
    const lost = total - bound.linksPerKey;
    expect(ran.stderr).toBe(
      `streamscope profile: wrote flood.sstrace (${lost} flows dropped at the collector's bounds (arrows not drawn))\n`,
    );
  }, 120_000);

  it.each([
    {
      flood: 'unlinked 300000',
      table: 'gpuByCorrelation',
      bound: bound.gpuByCorrelation,
      // GPU records whose API call never came: the oldest forgotten, their arrows lost.
      warning: `${300_000 - bound.gpuByCorrelation} flows dropped at the collector's bounds (arrows not drawn)`,
    },
    {
      flood: 'waits 100000',
      table: 'waitsBySyncId',
      bound: bound.waitsBySyncId,
      warning: `${100_000 - bound.waitsBySyncId} flows dropped at the collector's bounds (arrows not drawn)`,
    },
    {
      flood: 'ranges 50000',
      table: 'openRanges',
      bound: bound.openRanges,
      // Ranges started and never ended: the oldest forgotten, so their ranges are dropped.
      warning: `${50_000 - bound.openRanges} records dropped at the collector's memory cap`,
    },
    {
      flood: 'names 200000',
      table: 'strings',
      bound: bound.strings,
      // One slot is the stand-in name's: 131071 marks keep their own name.
      warning: `${200_000 - (bound.strings - 1)} names, launch configurations or lane details dropped at the collector's bounds`,
    },
    {
      flood: 'threads 20000',
      table: 'tracks',
      bound: bound.tracks,
      // 3616 calls on threads past the lane bound; 16384 - 1024 threads' nesting forgotten.
      warning: `${20_000 - bound.tracks} records dropped at the collector's memory cap; ${bound.tracks - bound.threads} names, launch configurations or lane details dropped at the collector's bounds`,
    },
    {
      flood: 'streams 40000',
      table: 'streamsDescribed',
      bound: bound.streamsDescribed,
      warning: `${40_000 - bound.tracks} records dropped at the collector's memory cap; ${40_000 - bound.streamsDescribed} names, launch configurations or lane details dropped at the collector's bounds`,
    },
    {
      flood: 'launches 70000',
      table: 'launchConfigs',
      bound: bound.launchConfigs,
      warning: `${70_000 - bound.launchConfigs} names, launch configurations or lane details dropped at the collector's bounds`,
    },
  ])(
    'holds $table at its bound under flood $flood and reports what it dropped in the trace and its line',
    async ({ flood, table, bound: limit, warning }) => {
      const ran = await runCheck(
        `flood ${flood}\nfootprint\nexit\n`,
        { STREAMSCOPE_PROFILE_OUT: 'flood.sstrace' },
        dir,
      );
      expect(ran.code).toBe(0);
      const [after] = footprints(ran.stdout);
      expectAllWithinBounds(after!);
      expect(held(after!, table)).toBe(limit);
      expect(ran.stderr).toBe(`streamscope profile: wrote flood.sstrace (${warning})\n`);
      const trace = loadTrace(new Uint8Array(await readFile(path.join(dir, 'flood.sstrace'))));
      expect(trace.meta.warnings).toEqual(warning.split('; '));
    },
    60_000,
  );

  it('drops the flows queued past the record cap while nothing drains, and says how many', async () => {
    // 64 calls, each the call of 64 GPU records already sent: 4096 arrows at once against a
    // queue of 1024 (STREAMSCOPE_PROFILE_MAX_RECORDS, below kMaxQueuedFlows).
    const ran = await runCheck(
      'flood flows 64\nfootprint\nexit\n',
      { STREAMSCOPE_PROFILE_OUT: 'flows.sstrace', STREAMSCOPE_PROFILE_MAX_RECORDS: '1024' },
      dir,
    );
    expect(ran.code).toBe(0);
    expect(held(footprints(ran.stdout)[0]!, 'queuedFlows')).toBe(1024);
    expect(ran.stderr).toBe(
      "streamscope profile: wrote flows.sstrace (3072 flows dropped at the collector's bounds (arrows not drawn))\n",
    );
    const trace = loadTrace(new Uint8Array(await readFile(path.join(dir, 'flows.sstrace'))));
    expect(trace.flows.count).toBe(1024);
  });

  it("holds the executor's issued ops and pending waits at their bounds; late records count as unmatched, given-up waits as unresolved", async () => {
    // 400k issued ops: the first 1000's GPU records arrive after 262144 newer ones were issued.
    // 600k waits on an event record that never completes: the oldest are given up.
    const flushes = 'flush\n'.repeat(50);
    const ran = await runCheck(
      `flood issued 400000\nflood pending-waits 600000\n${flushes}footprint\nexit\n`,
      { STREAMSCOPE_PROFILE_OUT: 'executor.sstrace' },
      dir,
    );
    expect(ran.code).toBe(0);
    const [after] = footprints(ran.stdout);
    expectAllWithinBounds(after!);
    expect(held(after!, 'issued')).toBe(bound.issued);
    expect(held(after!, 'pendingWaits')).toBe(bound.pendingWaits);
    expect(after!.counts).toEqual({
      unmatched: 1000,
      unresolvedWaits: 600_000 - bound.pendingWaits,
      opsOut: 1 + 1000, // the lane's first kernel and the last 1000 issued ops, joined
    });
  });
});

describe.skipIf(!built)("the collector's bounds, reported to a server", () => {
  let t: TestServer;
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'streamscope-bounds-'));
    t = await startTestServer({
      profileTiming: { reconnectGraceMs: 300, exitGraceMs: 300, stopGraceMs: 3000 },
    });
  });

  afterEach(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("puts the flows and details it dropped in the run's warnings", async () => {
    const ran = await runCheck(
      'flood unlinked 70000\nflood launches 66000\nexit\n',
      { STREAMSCOPE_PROFILE_SOCKET: t.server.profileSocket!, STREAMSCOPE_PROFILE_TITLE: 'bounds' },
      dir,
    );
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    let entry: TraceEntry | undefined;
    while (entry?.fileBytes === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const list = (await t.api('GET', '/api/traces', '/api/traces')).body as TraceEntry[];
      entry = list.find((e) => e.title === 'bounds');
    }
    // 70000 - 65536 unlinked GPU records forgotten (the launches flood's kernels carry no
    // correlation id: they wait for no call). The unlinked flood made grid 1; the launches flood
    // adds grids 2..66000, of which 65535 fit: 464 past the bound.
    expect(entry.warnings).toContainEqual(
      expect.stringMatching(
        /^pid \d+: 4464 flows dropped at the collector's bounds \(arrows not drawn\)$/,
      ),
    );
    expect(entry.warnings).toContainEqual(
      expect.stringMatching(
        /^pid \d+: 464 names, launch configurations or lane details dropped at the collector's bounds$/,
      ),
    );
  });
});
