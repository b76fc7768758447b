import type { Trace } from '@streamscope/trace';
import { OpKind, isSyncKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importTrace } from '../import-trace.ts';
import { importSummary } from '../summary.ts';
import { importFixture, readFixture } from '../test-support.ts';
import { loadSqlJs } from './load-sqljs.ts';

// Two ranks of a data-parallel job, rank r on GPU r, each numbering its own context 1 and streams
// 7 and 15 (scripts/gpu-record/make-old-fixtures.py). Their sync rows say deviceId 0 for both.
const ddp = ['nsys/handmade/ddp-2gpu.json', 'nsys/handmade/ddp-2gpu.sqlite'];
const noStream = 4294967295;

function gpuTracks(trace: Trace): { pid: number; deviceId: number; streamId: number }[] {
  return trace.tracks.flatMap((t) => (t.kind === 'gpu-stream' ? [t] : []));
}

/** The export's own counts: rows of its activity tables, and its (process, context, stream)s. */
async function sqliteCounts(file: string): Promise<Record<string, number>> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(readFixture(file));
  const one = (sql: string): number => Number(db.exec(sql)[0]!.values[0]![0]);
  const gpu = (table: string): string =>
    `SELECT globalPid, contextId, streamId FROM CUPTI_ACTIVITY_KIND_${table}`;
  const counts = {
    kernel: one('SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL'),
    memcpy: one('SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY'),
    memset: one('SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMSET'),
    sync: one('SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION'),
    api: one('SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass IN (0, 1)'),
    // this export was written without the CUDA event table the JSON one has
    event:
      one("SELECT COUNT(*) FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_CUDA_EVENT'") === 0
        ? 0
        : one('SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT'),
    gpuStreams: one(
      `SELECT COUNT(*) FROM (SELECT DISTINCT * FROM (${gpu('KERNEL')} UNION ${gpu('MEMCPY')} ` +
        `UNION ${gpu('MEMSET')} UNION ${gpu('SYNCHRONIZATION')}) WHERE streamId != ${noStream})`,
    ),
    devices: one('SELECT COUNT(*) FROM TARGET_INFO_GPU'),
  };
  db.close();
  return counts;
}

/** The same counts from the JSON export's event lines. */
function jsonCounts(file: string): Record<string, number> {
  const counts = {
    kernel: 0,
    memcpy: 0,
    memset: 0,
    sync: 0,
    api: 0,
    event: 0,
    gpuStreams: 0,
    devices: 0,
  };
  const streams = new Set<string>();
  const devices = new Set<number>();
  for (const text of new TextDecoder().decode(readFixture(file)).split('\n')) {
    const line = (text === '' ? {} : JSON.parse(text)) as Record<string, Record<string, unknown>>;
    const cuda = line['CudaEvent'];
    if (line['TraceProcessEvent'] !== undefined) {
      counts.api++;
    }
    if (cuda !== undefined && 'cudaEventRecord' in cuda) {
      counts.event++;
    }
    if (cuda === undefined || 'cudaEventRecord' in cuda) {
      continue;
    }
    const kind = ['kernel', 'memcpy', 'memset', 'sync'].find((k) => k in cuda) as
      'kernel' | 'memcpy' | 'memset' | 'sync';
    counts[kind]++;
    if (kind !== 'sync') {
      devices.add(Number(cuda['deviceId']));
    }
    if (Number(cuda['streamId']) !== noStream) {
      streams.add(
        `${String(cuda['globalPid'])},${String(cuda['contextId'])},${String(cuda['streamId'])}`,
      );
    }
  }
  return { ...counts, gpuStreams: streams.size, devices: devices.size };
}

describe('nsys exports of two processes on two GPUs', () => {
  for (const file of ddp) {
    it(`puts every stream of ${file} on its process's GPU, once, sync rows included`, async () => {
      const { trace } = await importFixture(file);
      const tracks = gpuTracks(trace);
      // rank 0 (pid 2001) runs on GPU 0, rank 1 (pid 2002) on GPU 1, whatever their sync rows say
      expect(tracks.map((t) => `${t.pid}@${t.deviceId}`).sort()).toEqual([
        '2001@0',
        '2001@0',
        '2001@0',
        '2002@1',
        '2002@1',
        '2002@1',
      ]);
      const keys = tracks.map((t) => `${t.deviceId}:${t.streamId}`);
      expect(new Set(keys).size).toBe(keys.length); // no (device, stream) twice
      const ops = trace.ops.columns();
      for (let i = 0; i < ops.count; i++) {
        const track = trace.tracks[ops.track[i]!]!;
        if (isSyncKind(ops.kind[i]!) && track.kind === 'gpu-stream') {
          expect(track.deviceId).toBe(track.pid === 2002 ? 1 : 0);
        }
      }
      expect(trace.devices.map((d) => d.deviceId)).toEqual([0, 1]);
    });

    it(`summarizes ${file} with the export's own counts`, async () => {
      const { trace } = await importFixture(file);
      const summary = importSummary(trace);
      const own = file.endsWith('.sqlite') ? await sqliteCounts(file) : jsonCounts(file);
      // per rank: 2 kernels, 1 copy, 1 memset, 4 syncs, 9 API calls on streams 7 and 15, and
      // in the JSON export an event record
      expect(own).toEqual({
        kernel: 4,
        memcpy: 2,
        memset: 2,
        sync: 8,
        api: 18,
        event: file.endsWith('.sqlite') ? 0 : 2,
        gpuStreams: 4,
        devices: 2,
      });
      expect({
        ...summary.counts,
        gpuStreams: summary.gpuStreams,
        devices: summary.devices,
      }).toEqual({ ...own, graph: 0, other: 0, range: 0 });
      expect(summary.hostThreads).toBe(2);
    });
  }

  it('gives no export two tracks for one (process, device, context, stream)', async () => {
    for (const file of [
      ...ddp,
      'nsys/2025.3.1/train.json',
      'nsys/2025.3.1/train.sqlite',
      'nsys/2025.3.1/multi.json.gz',
      'nsys/2025.3.1/multi.sqlite.gz',
      'nsys/older/layout-a-2021.json',
      'nsys/older/schema-2021.sqlite',
      'nsys/older/schema-2026.sqlite',
    ]) {
      const { trace } = await importFixture(file);
      const keys = trace.tracks.flatMap((t) =>
        t.kind === 'gpu-stream' ? [`${t.pid},${t.deviceId},${t.contextId},${t.streamId}`] : [],
      );
      expect([file, new Set(keys).size]).toEqual([file, keys.length]);
    }
  });

  it('reads the JSON export with the fast scanner exactly as JSON.parse of every line does', async () => {
    const fast = await importFixture(ddp[0]!);
    const naive = await importFixture(ddp[0]!, { nsysJsonReader: 'json-parse' });
    expect(fast.trace.tracks).toEqual(naive.trace.tracks);
    expect(fast.warnings).toEqual(naive.warnings);
  });

  it('places a context that only sync rows name by TARGET_INFO_CUDA_CONTEXT_INFO', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    const pid = 7;
    const globalPid = 2 ** 48 + pid * 2 ** 24;
    db.run('CREATE TABLE StringIds (id INTEGER, value TEXT)');
    db.run(
      'CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER, ' +
        'contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER, eventId INTEGER)',
    );
    // a stream synchronize and a context synchronize in context 3, both said to be on device 0
    db.run(`INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
      (100, 200, 0, 3, 13, 1, ${globalPid}, 3, ${noStream}),
      (300, 400, 0, 3, ${noStream}, 2, ${globalPid}, 4, ${noStream})`);
    db.run(
      'CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER, hwId INTEGER, vmId INTEGER, ' +
        'processId INTEGER, deviceId INTEGER, contextId INTEGER, parentContextId INTEGER, isGreenContext INTEGER)',
    );
    db.run(`INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (7, 0, 1, ${pid}, 2, 3, 0, 0)`);
    const { trace } = await importTrace(db.export(), { fileName: 'contexts.sqlite' });
    db.close();
    expect(gpuTracks(trace).map((t) => `${t.deviceId}:${t.streamId}`)).toEqual([
      '2:13',
      `2:${noStream}`,
    ]);
    expect(trace.ops.columns().kind.slice(0, 2)).toEqual(
      new Uint8Array([OpKind.StreamSync, OpKind.DeviceSync]),
    );
  });
});
