import type { Trace } from '@streamscope/trace';
import { OpKind, isSyncKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importTrace } from '../import-trace.ts';
import { importFixture } from '../test-support.ts';
import { loadSqlJs } from './load-sqljs.ts';
import { SyncType, syncOpKind, syncTypeFromCupti, syncTypeFromName } from './sync-kinds.ts';

const none = 0xffffffff;

/** correlation id → "kind name" of every sync op, for the ops of process `pid`. */
function syncsByCorrelation(trace: Trace, pid: number): Record<number, string> {
  const ops = trace.ops.columns();
  const out: Record<number, string> = {};
  for (let i = 0; i < ops.count; i++) {
    if (isSyncKind(ops.kind[i]!) && trace.tracks[ops.track[i]!]!.pid === pid) {
      out[ops.correlationId[i]!] = `${ops.kind[i]} ${trace.name(ops.nameId[i]!)}`;
    }
  }
  return out;
}

const wait = `${OpKind.StreamWait} Stream wait event`;
const streamSync = `${OpKind.StreamSync} Stream synchronize`;
const eventSync = `${OpKind.EventSync} Event synchronize`;
const contextSync = `${OpKind.DeviceSync} Context synchronize`;

describe('sync kinds', () => {
  it("takes CUPTI's numbering and the names nsys writes, with or without their prefixes", () => {
    expect([0, 1, 2, 3, 4].map(syncTypeFromCupti)).toEqual([0, 1, 2, 3, 4]);
    expect(syncTypeFromCupti(5)).toBeUndefined();
    expect(syncTypeFromName('CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE')).toBe(
      SyncType.EventSynchronize,
    );
    expect(syncTypeFromName('SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT')).toBe(
      SyncType.StreamWaitEvent,
    );
    expect(syncTypeFromName('CONTEXT_SYNCHRONIZE')).toBe(SyncType.ContextSynchronize);
    expect(syncTypeFromName('SYNCHRONIZATION_TYPE_FENCE')).toBeUndefined();
  });

  it("keeps the type the row's stream and event ids allow, and reads the ids where they do not", () => {
    // type, stream, event → kind
    const cases: [number, number, number, number][] = [
      [SyncType.EventSynchronize, none, 5, OpKind.EventSync],
      [SyncType.StreamWaitEvent, 14, 5, OpKind.StreamWait],
      [SyncType.StreamSynchronize, 7, none, OpKind.StreamSync],
      [SyncType.ContextSynchronize, none, none, OpKind.DeviceSync],
      // nsys 2025.x writes cudaStreamSynchronize as a stream wait on no event
      [SyncType.StreamWaitEvent, 7, none, OpKind.StreamSync],
      // a stream wait without a stream cannot be one: an event synchronize
      [SyncType.StreamWaitEvent, none, 5, OpKind.EventSync],
      [SyncType.EventSynchronize, none, none, OpKind.DeviceSync],
      [SyncType.StreamSynchronize, none, 5, OpKind.EventSync],
      // unknown: by the ids alone
      [SyncType.Unknown, none, 5, OpKind.EventSync],
      [SyncType.Unknown, 14, 5, OpKind.StreamWait],
      [SyncType.Unknown, 7, none, OpKind.StreamSync],
      [SyncType.Unknown, none, none, OpKind.DeviceSync],
    ];
    for (const [type, stream, event, kind] of cases) {
      expect([type, stream, event, syncOpKind(type, stream, event)]).toEqual([
        type,
        stream,
        event,
        kind,
      ]);
    }
  });
});

describe('sync kinds per schema version', () => {
  it("reads an export without ENUM tables (before 2022) by CUPTI's numbering", async () => {
    const { trace, warnings } = await importFixture('nsys/older/schema-2021.sqlite');
    expect(syncsByCorrelation(trace, 1001)).toEqual({
      21: wait,
      23: wait,
      26: streamSync, // syncType 3
      27: eventSync, // syncType 1, no stream
      28: contextSync, // syncType 4
      29: eventSync, // syncType 0 (UNKNOWN) on an event, no stream: not a stream wait
    });
    expect(warnings.join('\n')).not.toMatch(/type CUPTI does not define/);
  });

  it('reads a 2023.3 export through its ENUM_CUPTI_SYNC_TYPE table', async () => {
    const { trace } = await importFixture('nsys/handmade/ddp-2gpu.sqlite');
    for (const pid of [2001, 2002]) {
      expect(syncsByCorrelation(trace, pid)).toEqual({
        4: wait,
        7: streamSync,
        8: eventSync,
        9: contextSync,
      });
    }
  });

  it('reads a 2025.3 JSON export by name, its stream wait on no event as a stream synchronize', async () => {
    const { trace, warnings } = await importFixture('nsys/handmade/ddp-2gpu.json');
    for (const pid of [2001, 2002]) {
      expect(syncsByCorrelation(trace, pid)).toEqual({
        4: wait,
        7: streamSync,
        8: eventSync,
        9: contextSync,
      });
    }
    expect(warnings.join('\n')).not.toMatch(/type CUPTI does not define/);
  });

  it('follows an ENUM table that numbers the types otherwise than CUPTI, and warns of names it lacks', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    const globalPid = 2 ** 48 + 9 * 2 ** 24;
    db.run('CREATE TABLE StringIds (id INTEGER, value TEXT)');
    db.run('CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER, name TEXT, label TEXT)');
    db.run(`INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES
      (1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait sync'),
      (2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE', 'Event sync'),
      (8, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_FENCE', 'Fence')`);
    db.run(
      'CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER, ' +
        'contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER, eventId INTEGER)',
    );
    // Both rows have a stream and an event: only the table tells a wait from an event synchronize.
    db.run(`INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
      (100, 200, 0, 1, 14, 1, ${globalPid}, 1, 5),
      (300, 400, 0, 1, 14, 2, ${globalPid}, 2, 5),
      (500, 600, 0, 1, 7, 3, ${globalPid}, 8, ${none}),
      (700, 800, 0, 1, 7, 4, ${globalPid}, 3, ${none})`);
    const { trace, warnings } = await importTrace(db.export(), { fileName: 'renumbered.sqlite' });
    db.close();
    expect(syncsByCorrelation(trace, 9)).toEqual({
      1: wait,
      2: eventSync,
      3: streamSync, // a name CUPTI lacks: by the ids
      4: streamSync, // an id the table leaves out: CUPTI's 3
    });
    expect(warnings.filter((w) => w.includes('CUPTI does not define'))).toEqual([
      'synchronizations of a type CUPTI does not define were classified by their stream and event ids (table CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: syncType 8)',
    ]);
  });

  it('warns of a JSON sync type it cannot name, and places the row by its ids', async () => {
    const strings = JSON.stringify({ data: [''] });
    const sync = (corr: number, syncType: unknown): string =>
      JSON.stringify({
        Type: 106,
        CudaEvent: {
          startNs: String(corr * 100),
          endNs: String(corr * 100 + 50),
          correlationId: corr,
          deviceId: 0,
          contextId: '1',
          streamId: String(none),
          globalPid: String(2 ** 48 + 5 * 2 ** 24),
          sync: { eventId: 3, syncType },
        },
      });
    const text = [strings, sync(1, 'SYNCHRONIZATION_TYPE_FENCE'), sync(2, 1), sync(3, 9)].join(
      '\n',
    );
    const { trace, warnings } = await importTrace(new TextEncoder().encode(`${text}\n`), {
      fileName: 'names.json',
    });
    expect(syncsByCorrelation(trace, 5)).toEqual({ 1: eventSync, 2: eventSync, 3: eventSync });
    // the name on line 2 and the number 9 on line 4; the number 1 is CUPTI's event synchronize
    expect(warnings.filter((w) => w.includes('CUPTI does not define'))).toEqual([
      'synchronizations of a type CUPTI does not define were classified by their stream and event ids (first at line 2: syncType "SYNCHRONIZATION_TYPE_FENCE") (2 times)',
    ]);
  });
});
