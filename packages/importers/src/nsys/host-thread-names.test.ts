import type { Trace } from '@streamscope/trace';
import { trackLabel } from '@streamscope/trace';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { importTrace } from '../import-trace.ts';
import { importFixture, readFixture } from '../test-support.ts';
import { loadSqlJs } from './load-sqljs.ts';

/** Each host track as "pid tid name", in track order. */
function hostTracks(trace: Trace): string[] {
  return trace.tracks.flatMap((t) =>
    t.kind === 'host-thread' ? [`${t.pid} ${t.tid} ${t.name}`] : [],
  );
}

describe('host-thread track names of nsys exports', () => {
  it("tells apart the recorded FSDP export's threads named python3 by tid, rank by rank", async () => {
    const file = 'nsys/2025.3.1/fsdp2gpu.sqlite.gz';
    const { trace } = await importFixture(file);
    // Each rank's process has three threads named "python3" (its main thread, tid = pid, and
    // two more): before, six tracks read "python3". Its other threads' names are unique there.
    expect(hostTracks(trace).sort()).toEqual([
      '991 1077 pt_nccl_watchdg',
      '991 1082 python3 (tid 1082)',
      '991 1083 python3 (tid 1083)',
      '991 1092 pt_autograd_0',
      '991 991 python3 (tid 991)',
      '992 1075 pt_nccl_watchdg',
      '992 1084 python3 (tid 1084)',
      '992 1085 python3 (tid 1085)',
      '992 1091 pt_autograd_1',
      '992 992 python3 (tid 992)',
    ]);
    // The export's own word, its globalTid split by SQLite (pid = bits 24-47, tid = bits 0-23):
    // the same threads under the same names.
    const SQL = await loadSqlJs();
    const db = new SQL.Database(gunzipSync(readFixture(file)));
    const rows = db.exec(
      'SELECT (globalTid >> 24) & 16777215, globalTid & 16777215, value FROM ThreadNames JOIN StringIds ON nameId = id',
    )[0]!.values;
    const named = new Map(rows.map(([pid, tid, name]) => [`${String(pid)} ${String(tid)}`, name]));
    for (const track of trace.tracks) {
      if (track.kind === 'host-thread') {
        const name = named.get(`${track.pid} ${track.tid}`);
        expect(name, `${track.pid} ${track.tid}`).toBeDefined();
        expect(track.name.startsWith(String(name)), track.name).toBe(true);
      }
    }
  });

  it('names the threads of a JSON export the same way: by tid where a process has two of a name', async () => {
    // globalTid = 2^48 (the local VM) + pid × 2^24 + tid
    const tid = (pid: number, t: number): string => String(2 ** 48 + pid * 2 ** 24 + t);
    const call = (globalTid: string, startNs: number): string =>
      `{"Type":48,"TraceProcessEvent":{"startNs":"${startNs}","endNs":"${startNs + 5}","correlationId":${startNs},"eventClass":0,"name":"2","globalTid":"${globalTid}"}}`;
    const thread = (globalTid: string, nameIdx: number): string =>
      `{"nameIdx":"${nameIdx}","priority":"20","globalTid":"${globalTid}"}`;
    const text = [
      '{"data":["","python3","cudaLaunchKernel","worker"]}',
      call(tid(1000, 1000), 10),
      call(tid(1000, 1001), 20),
      call(tid(1000, 1002), 30),
      call(tid(2000, 2000), 40),
      call(tid(2000, 2001), 50),
      `{"data":[${[
        thread(tid(1000, 1000), 1),
        thread(tid(1000, 1001), 1),
        thread(tid(1000, 1002), 3),
        thread(tid(2000, 2000), 1),
      ].join(',')}]}`,
    ].join('\n');
    const { trace } = await importTrace(new TextEncoder().encode(text), { fileName: 'x.json' });
    expect(hostTracks(trace)).toEqual([
      '1000 1000 python3 (tid 1000)',
      '1000 1001 python3 (tid 1001)',
      '1000 1002 worker',
      '2000 2000 python3',
      '2000 2001 ',
    ]);
    // An unnamed thread's track is labelled by its tid.
    expect(trackLabel(trace.tracks.find((t) => t.kind === 'host-thread' && t.tid === 2001)!)).toBe(
      'Thread 2001',
    );
  });
});
