import type { FlowTable } from '@streamscope/trace';
import { FlowKind, OpKind } from '@streamscope/trace';
import type { CorrelationIndex } from './correlation-index.ts';
import type { Warnings } from './warnings.ts';

/** The staged columns that event linking reads. */
export interface EventColumns {
  readonly count: number;
  readonly kind: Uint8Array;
  readonly proc: Uint32Array;
  readonly corr: Uint32Array;
  readonly eventId: Float64Array;
  readonly eventSyncId: Float64Array;
}

const noSyncId = 0xffffffff;

/**
 * Event record → wait / event-sync flows. A wait names its record by (process, event id, sync
 * id) in 2025+ exports; older exports reuse event ids, so it is the latest record of that id
 * issued before the wait (by correlation id). Kineto names the record's API call instead
 * (`waitOnCorrelation`). Waits whose record is missing are kept, unlinked, with a warning.
 */
export function linkEventRecords(
  ops: EventColumns,
  waitOnCorrelation: ReadonlyMap<number, number>,
  apiByCorr: CorrelationIndex,
  flows: FlowTable,
  warnings: Warnings,
): void {
  const records = new Map<string, number[]>();
  for (let i = 0; i < ops.count; i++) {
    if (ops.kind[i] === OpKind.EventRecord && !Number.isNaN(ops.eventId[i]!)) {
      const key = `${ops.proc[i]},${ops.eventId[i]}`;
      const list = records.get(key);
      if (list === undefined) {
        records.set(key, [i]);
      } else {
        list.push(i);
      }
    }
  }
  let dangling = 0;
  for (let i = 0; i < ops.count; i++) {
    const kind = ops.kind[i];
    if (kind !== OpKind.StreamWait && kind !== OpKind.EventSync) {
      continue;
    }
    const direct = waitOnCorrelation.get(i);
    let from: number | undefined;
    if (direct !== undefined) {
      const api = apiByCorr.get(ops.proc[i]!, direct);
      from = api < 0 ? undefined : api;
    } else if (!Number.isNaN(ops.eventId[i]!)) {
      from = findRecord(ops, records.get(`${ops.proc[i]},${ops.eventId[i]}`), i);
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
}

function findRecord(
  ops: EventColumns,
  candidates: number[] | undefined,
  wait: number,
): number | undefined {
  if (candidates === undefined) {
    return undefined;
  }
  const syncId = ops.eventSyncId[wait]!;
  if (!Number.isNaN(syncId) && syncId !== noSyncId) {
    const exact = candidates.filter((r) => ops.eventSyncId[r] === syncId);
    if (exact.length > 0) {
      return exact[exact.length - 1];
    }
  }
  const waitCorr = ops.corr[wait]!;
  let best: number | undefined;
  for (const r of candidates) {
    if (
      (waitCorr === 0 || ops.corr[r]! < waitCorr) &&
      (best === undefined || ops.corr[r]! > ops.corr[best]!)
    ) {
      best = r;
    }
  }
  return best;
}
