import { CodecError } from './codec-error.ts';
import {
  BatchKind,
  batchHeaderBytes,
  batchKindName,
  batchMagic,
  codecVersion,
  maxPayloadBytes,
  maxRecordsPerBatch,
} from './batch-format.ts';

/** A batch header that passed its checks (the layout is in batch-format.ts). */
export interface BatchHeader {
  readonly kind: number;
  /** The kind's name, for messages. */
  readonly name: string;
  readonly count: number;
  /** Where the payload starts and ends in the buffer read. */
  readonly payloadStart: number;
  readonly payloadEnd: number;
}

/**
 * Reads and checks the header of the batch at `at` in `bytes`: whole, its magic and version, a
 * payload that fits in `bytes`, a record count within bounds. `index` is the batch's number in
 * its stream and `base` where `bytes[0]` lies in the file, so a message names the batch and the
 * byte of the file. The kind is not checked here: an unknown one is the caller's to refuse.
 */
export function readBatchHeader(
  bytes: Uint8Array,
  at: number,
  index: number,
  base = 0,
): BatchHeader {
  const fileAt = base + at;
  if (bytes.length - at < batchHeaderBytes) {
    throw new CodecError(
      `batch ${index}: header truncated (${bytes.length - at} of ${batchHeaderBytes} bytes) at byte ${fileAt}`,
      fileAt,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, batchHeaderBytes);
  const magic = view.getUint32(0, true);
  if (magic !== batchMagic) {
    throw new CodecError(
      `batch ${index}: bad magic 0x${magic.toString(16).padStart(8, '0')} at byte ${fileAt} (not a streamscope record stream, or misaligned)`,
      fileAt,
    );
  }
  const version = view.getUint8(4);
  if (version !== codecVersion) {
    throw new CodecError(
      `batch ${index}: codec version ${version} at byte ${fileAt}; this build reads version ${codecVersion}`,
      fileAt,
    );
  }
  const kind = view.getUint8(5);
  const count = view.getUint32(8, true);
  const payloadBytes = view.getUint32(12, true);
  const name = batchKindName(kind);
  const payloadStart = at + batchHeaderBytes;
  if (payloadBytes > maxPayloadBytes || payloadBytes > bytes.length - payloadStart) {
    throw new CodecError(
      `batch ${index} (${name}): payload of ${payloadBytes} bytes runs past the end of the buffer (${bytes.length - payloadStart} left) at byte ${base + payloadStart}: truncated`,
      base + payloadStart,
    );
  }
  if (count > maxRecordsPerBatch && kind !== BatchKind.End) {
    throw new CodecError(
      `batch ${index} (${name}): record count ${count} exceeds ${maxRecordsPerBatch} at byte ${fileAt + 8}`,
      fileAt + 8,
    );
  }
  return { kind, name, count, payloadStart, payloadEnd: payloadStart + payloadBytes };
}
