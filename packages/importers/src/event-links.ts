import type { FlowTable } from '@streamscope/trace';
import { FlowKind, OpKind } from '@streamscope/trace';
import type { CorrelationIndex } from './correlation-index.ts';
import { IdHashMap } from './id-hash-map.ts';
import type { Warnings } from './warnings.ts';

/** The staged columns that event linking reads. */
export interface EventColumns {
  readonly count: number;
  readonly kind: Uint8Array;
  procOf(op: number): number;
  readonly corr: Uint32Array;
  /** Op `op`'s event id and sync id; NaN when it has none. */
  eventId(op: number): number;
  eventSyncId(op: number): number;
}

const noSyncId = 0xffffffff;
/** The sync id of a wait on an event not yet recorded (records count from 1). */
const neverRecordedSyncId = 0;

/**
 * Event record → wait / event-sync flows. A wait names its record by (process, event id, sync
 * id) in 2025+ exports; older exports reuse event ids, so it is the latest record of that id
 * issued before the wait (by correlation id). Kineto names the record's API call instead
 * (`waitOnCorrelation`). Waits whose record is missing are kept, unlinked, with a warning; a wait
 * with sync id 0 waited on an event never recorded (CUDA returns at once: nothing was waited for),
 * which is said apart, as it is a fact of the program, not a record the trace lost.
 */
export function linkEventRecords(
  ops: EventColumns,
  waitOnCorrelation: ReadonlyMap<number, number>,
  apiByCorr: CorrelationIndex,
  flows: FlowTable,
  warnings: Warnings,
): void {
  // One entry per distinct (process, event id): CUDA events are few and re-recorded.
  const records = new Map<string, EventRecords>();
  for (let i = 0; i < ops.count; i++) {
    if (ops.kind[i] === OpKind.EventRecord && !Number.isNaN(ops.eventId(i))) {
      const key = `${ops.procOf(i)},${ops.eventId(i)}`;
      const group = records.get(key);
      if (group === undefined) {
        records.set(key, { list: [i] });
      } else {
        group.list.push(i);
      }
    }
  }
  let dangling = 0;
  let neverRecorded = 0;
  for (let i = 0; i < ops.count; i++) {
    const kind = ops.kind[i];
    if (kind !== OpKind.StreamWait && kind !== OpKind.EventSync) {
      continue;
    }
    if (ops.eventSyncId(i) === neverRecordedSyncId) {
      neverRecorded++;
      continue;
    }
    const direct = waitOnCorrelation.get(i);
    let from: number | undefined;
    if (direct !== undefined) {
      const api = apiByCorr.get(ops.procOf(i), direct);
      from = api < 0 ? undefined : api;
    } else if (!Number.isNaN(ops.eventId(i))) {
      from = findRecord(ops, records.get(`${ops.procOf(i)},${ops.eventId(i)}`), i);
    } else {
      continue;
    }
    if (from === undefined) {
      dangling++;
    } else {
      flows.append(from, i, FlowKind.EventRecordToWait);
    }
  }
  if (dangling > 0) {
    warnings.add(
      `${dangling} waits name an event record that is not in the trace (kept without a link)`,
    );
  }
  if (neverRecorded > 0) {
    warnings.add(
      `${neverRecorded} waits on CUDA events never recorded before them (CUDA returns at once: they waited for nothing)`,
    );
  }
}

/** The records of one (process, event id), in op order, with lookups built on first use. */
interface EventRecords {
  readonly list: number[];
  /** Sync id → the last record with it. */
  bySync?: IdHashMap;
  /** The records stably sorted by correlation id. */
  byCorr?: Int32Array;
}

/**
 * The record a wait names: the last one with its sync id, else the latest issued before it (the
 * largest correlation id below the wait's, the first of equals). Indexed, not scanned: an event
 * re-recorded a million times costs a hash lookup or a binary search per wait.
 */
function findRecord(
  ops: EventColumns,
  group: EventRecords | undefined,
  wait: number,
): number | undefined {
  if (group === undefined) {
    return undefined;
  }
  const syncId = ops.eventSyncId(wait);
  if (!Number.isNaN(syncId) && syncId !== noSyncId) {
    if (isKey(syncId)) {
      group.bySync ??= indexBySync(ops, group.list);
      const exact = group.bySync.get(syncId);
      if (exact >= 0) {
        return exact;
      }
    } else {
      const exact = group.list.filter((r) => ops.eventSyncId(r) === syncId);
      if (exact.length > 0) {
        return exact[exact.length - 1];
      }
    }
  }
  const sorted = (group.byCorr ??= sortByCorr(ops, group.list));
  const waitCorr = ops.corr[wait]!;
  // The last position whose correlation id is below the wait's (any, when the wait has none).
  let lo = 0;
  let hi = sorted.length;
  if (waitCorr !== 0) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ops.corr[sorted[mid]!]! < waitCorr) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
  }
  let at = (waitCorr === 0 ? sorted.length : lo) - 1;
  if (at < 0) {
    return undefined;
  }
  const corr = ops.corr[sorted[at]!]!;
  while (at > 0 && ops.corr[sorted[at - 1]!] === corr) {
    at--;
  }
  return sorted[at];
}

function isKey(id: number): boolean {
  return id >= 0 && Number.isSafeInteger(id);
}

function indexBySync(ops: EventColumns, list: readonly number[]): IdHashMap {
  const map = new IdHashMap(list.length);
  for (const r of list) {
    const id = ops.eventSyncId(r);
    if (isKey(id)) {
      map.set(id, r); // later records overwrite: the last one wins
    }
  }
  return map;
}

function sortByCorr(ops: EventColumns, list: readonly number[]): Int32Array {
  // Array.prototype.sort is stable: equal ids keep op order.
  return Int32Array.from([...list].sort((a, b) => ops.corr[a]! - ops.corr[b]!));
}
