/** "SSL1" little-endian: the first u32 of every binary frame on /api/live. */
export const liveFrameMagic = 0x314c5353;

export interface LiveFrame {
  readonly seq: number;
  readonly runId: string;
  /** Codec batches for a TraceDecoder (a view into the frame, not a copy). */
  readonly batches: Uint8Array;
}

/**
 * Splits a binary live frame: [u32 magic][u32 seq][u16 runId byte length][runId utf-8][batches].
 * Throws on a short or foreign frame rather than guessing.
 */
export function parseLiveFrame(buffer: ArrayBuffer): LiveFrame {
  const headerBytes = 10;
  if (buffer.byteLength < headerBytes) {
    throw new Error(`live frame of ${buffer.byteLength} bytes is shorter than its 10-byte header`);
  }
  const view = new DataView(buffer);
  const magic = view.getUint32(0, true);
  if (magic !== liveFrameMagic) {
    throw new Error(
      `live frame magic 0x${magic.toString(16)} is not 0x${liveFrameMagic.toString(16)}`,
    );
  }
  const seq = view.getUint32(4, true);
  const idBytes = view.getUint16(8, true);
  if (headerBytes + idBytes > buffer.byteLength) {
    throw new Error(`live frame run id of ${idBytes} bytes runs past the frame end`);
  }
  const runId = new TextDecoder().decode(new Uint8Array(buffer, headerBytes, idBytes));
  return { seq, runId, batches: new Uint8Array(buffer, headerBytes + idBytes) };
}
