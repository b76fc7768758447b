import { describe, expect, it } from 'vitest';
import { liveFrameMagic, parseLiveFrame } from './live-frame.ts';

function frame(seq: number, runId: string, payload: number[]): ArrayBuffer {
  const id = new TextEncoder().encode(runId);
  const buffer = new ArrayBuffer(10 + id.length + payload.length);
  const view = new DataView(buffer);
  view.setUint32(0, liveFrameMagic, true);
  view.setUint32(4, seq, true);
  view.setUint16(8, id.length, true);
  new Uint8Array(buffer, 10).set(id);
  new Uint8Array(buffer, 10 + id.length).set(payload);
  return buffer;
}

describe('parseLiveFrame', () => {
  it('reads the sequence number, the run id and the batch bytes after them', () => {
    const parsed = parseLiveFrame(frame(7, 'run-ä1', [1, 2, 3]));
    expect(parsed.seq).toBe(7);
    expect(parsed.runId).toBe('run-ä1');
    expect([...parsed.batches]).toEqual([1, 2, 3]);
  });

  it('rejects a frame with a foreign magic number', () => {
    const buffer = frame(1, 'r', []);
    new DataView(buffer).setUint32(0, 0xdeadbeef, true);
    expect(() => parseLiveFrame(buffer)).toThrow(/magic/);
  });

  it('rejects a run id longer than the frame', () => {
    const buffer = frame(1, 'r', []);
    new DataView(buffer).setUint16(8, 400, true);
    expect(() => parseLiveFrame(buffer)).toThrow(/past the frame end/);
  });

  it('rejects a frame shorter than its header', () => {
    expect(() => parseLiveFrame(new ArrayBuffer(4))).toThrow(/shorter/);
  });
});
