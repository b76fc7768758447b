import { describe, expect, it } from 'vitest';
import { nsysJsonReadFloor } from './nsys-json-read-floor.ts';

async function* chunks(text: string, chunkBytes: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    await Promise.resolve();
    yield bytes.subarray(at, at + chunkBytes);
  }
}

describe('nsysJsonReadFloor', () => {
  it('reads every event line, scanned or parsed, in chunks of any size, and keeps none', async () => {
    const lines = [
      '{"data":["cudaLaunchKernel","k"]}',
      '{"Type":48,"TraceProcessEvent":{"startNs":"5","endNs":"9","correlationId":3,"eventClass":1,"name":"0","globalTid":"281474976710657"}}',
      // Whitespace: handed to JSON.parse, as the import does.
      '{ "Type": 48, "TraceProcessEvent": {"startNs": "6", "endNs": "8", "eventClass": 1, "globalTid": "281474976710657"}}',
      '{"Type":79,"CudaEvent":{"startNs":"10","endNs":"20","correlationId":3,"deviceId":0,"contextId":"1","streamId":"7","globalPid":"281474976710656","kernel":{"shortName":"1"}}}',
    ];
    for (const chunkBytes of [7, 64, 1 << 20]) {
      expect(await nsysJsonReadFloor(chunks(`${lines.join('\n')}\n`, chunkBytes))).toBe(3);
    }
  });
});
