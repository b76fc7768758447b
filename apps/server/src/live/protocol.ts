import type { BackendName } from '@streamscope/executor';

/**
 * The live channel at /api/live. Text frames carry JSON control messages; binary frames carry a
 * header and codec batches (TraceEncoder output):
 *
 *   offset 0  u32 LE  magic 0x314c5353 ('SSL1')
 *          4  u32 LE  seq: counts this run's binary frames from 0
 *          8  u16 LE  byte length N of the run id
 *         10  N bytes run id, UTF-8
 *     10 + N  ...     codec batches; the last frame of a run holds the end batch
 */
export const liveFrameMagic = 0x314c5353;
export const liveFrameFixedBytes = 10;

/** What a client may send. */
export type ClientMessage =
  | { readonly type: 'subscribe'; readonly runId: string; readonly fromSeq?: number }
  | { readonly type: 'unsubscribe'; readonly runId: string };

export interface RunSummaryInfo {
  readonly opCount: number;
  readonly spanNs: number;
  /** Absent when the summary was rebuilt from the stored row. */
  readonly trackCount?: number;
  /** `summarizeRun(trace)` from @streamscope/analysis, when it could be computed. */
  readonly analysis?: unknown;
}

/** What the server sends as text frames. */
export type ServerMessage =
  | {
      readonly type: 'subscribed';
      readonly runId: string;
      readonly status: string;
      /** The seq of the next binary frame this subscription will send. */
      readonly nextSeq: number;
    }
  | { readonly type: 'queued'; readonly runId: string; readonly position: number }
  | {
      readonly type: 'started';
      readonly runId: string;
      readonly backend: BackendName;
      readonly target?: string;
      readonly reason?: string;
    }
  | {
      readonly type: 'progress';
      readonly runId: string;
      readonly opCount: number;
      readonly spanNs: number;
      readonly elapsedMs: number;
    }
  | {
      readonly type: 'finished';
      readonly runId: string;
      readonly frameCount: number;
      readonly summary: RunSummaryInfo;
    }
  | {
      readonly type: 'failed';
      readonly runId: string;
      readonly frameCount: number;
      readonly reason: string;
    }
  | { readonly type: 'cancelled'; readonly runId: string; readonly frameCount: number }
  | {
      readonly type: 'error';
      readonly code: string;
      readonly message: string;
      readonly runId?: string;
    };

/** A binary frame: header then codec bytes, built once and sent to every subscriber. */
export function encodeLiveFrame(runId: string, seq: number, batches: Uint8Array): Buffer {
  const { frame, batchesAt } = allocLiveFrame(runId, seq, batches.length);
  frame.set(batches, batchesAt);
  return frame;
}

/**
 * A frame with its header written and room for `batchBytes` of codec batches at `batchesAt`,
 * for a caller that reads the batches straight into it (a stored run, from its file).
 */
export function allocLiveFrame(
  runId: string,
  seq: number,
  batchBytes: number,
): { frame: Buffer; batchesAt: number } {
  const id = Buffer.from(runId, 'utf8');
  const frame = Buffer.allocUnsafe(liveFrameFixedBytes + id.length + batchBytes);
  frame.writeUInt32LE(liveFrameMagic, 0);
  frame.writeUInt32LE(seq, 4);
  frame.writeUInt16LE(id.length, 8);
  id.copy(frame, liveFrameFixedBytes);
  return { frame, batchesAt: liveFrameFixedBytes + id.length };
}

export interface LiveFrame {
  readonly runId: string;
  readonly seq: number;
  readonly batches: Uint8Array;
}

/** Splits a binary frame; throws with the reason when it is not one. */
export function decodeLiveFrame(frame: Uint8Array): LiveFrame {
  if (frame.length < liveFrameFixedBytes) {
    throw new Error(
      `live frame of ${frame.length} bytes is shorter than its ${liveFrameFixedBytes}-byte header`,
    );
  }
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== liveFrameMagic) {
    throw new Error(
      `live frame has magic 0x${magic.toString(16)}, expected 0x${liveFrameMagic.toString(16)}`,
    );
  }
  const idBytes = view.getUint16(8, true);
  if (liveFrameFixedBytes + idBytes > frame.length) {
    throw new Error(`live frame run id of ${idBytes} bytes runs past the frame`);
  }
  return {
    seq: view.getUint32(4, true),
    runId: Buffer.from(frame.subarray(liveFrameFixedBytes, liveFrameFixedBytes + idBytes)).toString(
      'utf8',
    ),
    batches: frame.subarray(liveFrameFixedBytes + idBytes),
  };
}

/** Parses and validates one client text message; returns a precise error message otherwise. */
export function parseClientMessage(
  text: string,
): { ok: true; message: ClientMessage } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'message is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'message must be a JSON object' };
  }
  const record = value as Record<string, unknown>;
  const type = record['type'];
  const runId = record['runId'];
  if (type !== 'subscribe' && type !== 'unsubscribe') {
    return {
      ok: false,
      error: `$.type must be 'subscribe' or 'unsubscribe', got ${JSON.stringify(type) ?? 'nothing'}`,
    };
  }
  if (typeof runId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(runId)) {
    return { ok: false, error: '$.runId must be a run id (1 to 64 characters of [A-Za-z0-9_-])' };
  }
  if (type === 'unsubscribe') {
    return { ok: true, message: { type, runId } };
  }
  const fromSeq = record['fromSeq'];
  if (fromSeq === undefined || fromSeq === null) {
    return { ok: true, message: { type, runId } };
  }
  if (
    typeof fromSeq !== 'number' ||
    !Number.isInteger(fromSeq) ||
    fromSeq < 0 ||
    fromSeq > 0xffffffff
  ) {
    return { ok: false, error: '$.fromSeq must be an integer in [0, 2^32)' };
  }
  return { ok: true, message: { type, runId, fromSeq } };
}
