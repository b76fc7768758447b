import { ByteReader } from './byte-reader.ts';
import { BatchKind, batchHeaderBytes, batchMagic, codecVersion } from './batch-format.ts';
import { CodecError } from './codec-error.ts';
import type { EndCounts } from './trace-decoder.ts';

const fields = [
  'strings',
  'devices',
  'processes',
  'tracks',
  'launches',
  'ops',
  'flows',
  'ranges',
] as const satisfies readonly (keyof EndCounts)[];

/** Bytes at the end of a container that always hold its end batch: its header and 8 varints. */
export const endBatchMaxBytes = batchHeaderBytes + fields.length * 9;

/**
 * The counts of a container from its last bytes (`tail`, at least the end batch; read
 * `endBatchMaxBytes` from the file's end), without reading the rest: what a task will decode,
 * sized before it runs. Undefined when the tail does not end with an end batch (a live run's
 * record stream so far, a truncated file).
 */
export function endCountsOf(tail: Uint8Array): EndCounts | undefined {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  for (let at = tail.length - batchHeaderBytes; at >= 0; at--) {
    if (
      view.getUint32(at, true) !== batchMagic ||
      view.getUint8(at + 4) !== codecVersion ||
      view.getUint8(at + 5) !== BatchKind.End ||
      view.getUint32(at + 8, true) !== fields.length ||
      at + batchHeaderBytes + view.getUint32(at + 12, true) !== tail.length
    ) {
      continue;
    }
    const reader = new ByteReader(tail, at + batchHeaderBytes, tail.length, () => 'end batch');
    try {
      const counts = Object.fromEntries(fields.map((field) => [field, reader.varint(field)]));
      return reader.remaining === 0 ? (counts as unknown as EndCounts) : undefined;
    } catch (error) {
      if (error instanceof CodecError) {
        return undefined;
      }
      throw error;
    }
  }
  return undefined;
}
