import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dumpTrace } from '../dump-trace.ts';
import { importTrace } from '../import-trace.ts';
import { fixturePath, readFixture } from '../test-support.ts';
import type { NsysJsonReader } from './nsys-json.ts';

/** Every nsys JSON export under fixtures/nsys (gzip'd or not), relative to fixtures/. */
function nsysJsonFixtures(dir = 'nsys'): string[] {
  return readdirSync(fixturePath(dir)).flatMap((name) => {
    const relative = `${dir}/${name}`;
    if (statSync(fixturePath(relative)).isDirectory()) {
      return nsysJsonFixtures(relative);
    }
    return /\.json(\.gz)?$/.test(name) ? [relative] : [];
  });
}

async function dump(file: string, reader: NsysJsonReader, chunkBytes: number): Promise<string> {
  const bytes = readFixture(file);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    chunks.push(bytes.subarray(at, at + chunkBytes));
  }
  const { trace, warnings } = await importTrace(chunks.length === 1 ? bytes : new Blob(chunks), {
    fileName: path.basename(file),
    nsysJsonReader: reader,
  });
  return `${dumpTrace(trace, Number.MAX_SAFE_INTEGER)}\n${warnings.join('\n')}`;
}

describe('the nsys JSON fast path builds what JSON.parse builds', () => {
  it.each(nsysJsonFixtures())(
    'on the recorded %s, whole and in 64 KiB pieces',
    async (file) => {
      const reference = await dump(file, 'json-parse', Number.MAX_SAFE_INTEGER);
      expect(reference.length).toBeGreaterThan(100);
      expect(await dump(file, 'fast', Number.MAX_SAFE_INTEGER)).toBe(reference);
      expect(await dump(file, 'fast', 65_536)).toBe(reference);
    },
    60_000,
  );
});
