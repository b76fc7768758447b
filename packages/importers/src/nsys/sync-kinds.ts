import { OpKind } from '@streamscope/trace';
import { noId32 } from './nsys-enums.ts';

/**
 * CUPTI's CUpti_ActivitySynchronizationType (cupti_activity.h, CUPTI activity API): 0 unknown,
 * 1 event synchronize, 2 stream wait event, 3 stream synchronize, 4 context synchronize. nsys
 * copies it into its sync rows; the ENUM_CUPTI_SYNC_TYPE tables of the 2022.4–2026 exports list
 * the same ids (shared/research/nsys-formats.md §1.9), and schemas without ENUM tables (2021.x and
 * older) document no other numbering.
 */
export const SyncType = {
  Unknown: 0,
  EventSynchronize: 1,
  StreamWaitEvent: 2,
  StreamSynchronize: 3,
  ContextSynchronize: 4,
} as const;

const syncTypeBaseNames: Record<string, number> = {
  UNKNOWN: SyncType.Unknown,
  EVENT_SYNCHRONIZE: SyncType.EventSynchronize,
  STREAM_WAIT_EVENT: SyncType.StreamWaitEvent,
  STREAM_SYNCHRONIZE: SyncType.StreamSynchronize,
  CONTEXT_SYNCHRONIZE: SyncType.ContextSynchronize,
};

/**
 * A sync type by name: the SQLite ENUM table's `CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_*`, the JSON
 * export's `SYNCHRONIZATION_TYPE_*`, or the bare suffix. Undefined for names CUPTI does not have.
 */
export function syncTypeFromName(name: string): number | undefined {
  const base = name.replace(/^(CUPTI_ACTIVITY_)?(SYNCHRONIZATION_TYPE_)?/, '');
  return syncTypeBaseNames[base];
}

/** A sync type by CUPTI's number (the documented numbering), undefined for numbers CUPTI lacks. */
export function syncTypeFromCupti(value: number): number | undefined {
  return Number.isInteger(value) &&
    value >= SyncType.Unknown &&
    value <= SyncType.ContextSynchronize
    ? value
    : undefined;
}

/**
 * The op kind of a sync row. The type says which API waited; the row's stream and event ids must
 * agree with it, because CUPTI fills each only where the API has one (CUpti_ActivitySynchronization:
 * streamId "not valid for cuCtxSynchronize, cuEventSynchronize", cudaEventId "not valid for
 * cuCtxSynchronize, cuStreamSynchronize"). A type that the ids contradict, or an unknown one, is
 * decided by the ids alone. So nsys 2025.x's cudaStreamSynchronize, written as a stream wait on
 * event 0xFFFFFFFF, is a stream synchronize, and an event synchronize (no stream) is never drawn
 * as a stream wait whatever number its export gave it.
 */
export function syncOpKind(syncType: number, streamId: number, eventId: number): number {
  const hasStream = streamId !== noId32;
  const hasEvent = eventId !== noId32;
  switch (syncType) {
    case SyncType.EventSynchronize:
      if (hasEvent) {
        return OpKind.EventSync;
      }
      break;
    case SyncType.StreamWaitEvent:
      if (hasStream && hasEvent) {
        return OpKind.StreamWait;
      }
      break;
    case SyncType.StreamSynchronize:
      if (hasStream) {
        return OpKind.StreamSync;
      }
      break;
    case SyncType.ContextSynchronize:
      return OpKind.DeviceSync;
    default:
      break;
  }
  if (hasStream) {
    return hasEvent ? OpKind.StreamWait : OpKind.StreamSync;
  }
  return hasEvent ? OpKind.EventSync : OpKind.DeviceSync;
}

/** Display names of the sync op kinds (nsys's own labels). */
export const syncNames: Record<number, string> = {
  [OpKind.StreamWait]: 'Stream wait event',
  [OpKind.StreamSync]: 'Stream synchronize',
  [OpKind.EventSync]: 'Event synchronize',
  [OpKind.DeviceSync]: 'Context synchronize',
};
