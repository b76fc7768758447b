import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { saveTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importTrace } from './import-trace.ts';
import { bytesAsRandomAccess } from './sqlite-reader/random-access.ts';
import { fixturePath, importErrorOf, readFixture } from './test-support.ts';

/** Every SQLite file under fixtures/, relative to it. */
function sqliteFixtures(dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(fixturePath(dir === '' ? '.' : dir))) {
    const rel = dir === '' ? name : `${dir}/${name}`;
    if (statSync(fixturePath(rel)).isDirectory()) {
      out.push(...sqliteFixtures(rel));
    } else if (/\.sqlite(\.gz)?$/.test(name)) {
      out.push(rel);
    }
  }
  return out.sort();
}

function inflated(rel: string): Uint8Array {
  const bytes = readFixture(rel);
  return rel.endsWith('.gz') ? new Uint8Array(gunzipSync(bytes)) : bytes;
}

describe('the two SQLite engines', () => {
  const files = sqliteFixtures();

  it('find the SQLite fixtures', () => {
    expect(files.filter((f) => f.startsWith('nsys/')).length).toBeGreaterThanOrEqual(10);
  });

  for (const rel of files) {
    it(`read ${rel} to byte-identical traces, or fail alike`, async () => {
      const bytes = inflated(rel);
      const fileName = path.basename(rel).replace(/\.gz$/, '');
      // sql.js (bytes in memory) against our file reader (the same bytes read at positions).
      const viaSqlJs = await importTrace(bytes.slice(), { fileName }).catch((e: unknown) => e);
      const viaFile = await importTrace(bytesAsRandomAccess(bytes), { fileName }).catch(
        (e: unknown) => e,
      );
      if (viaSqlJs instanceof Error) {
        expect(viaFile).toBeInstanceOf(Error);
        return;
      }
      expect(viaFile).not.toBeInstanceOf(Error);
      const a = saveTrace((viaSqlJs as Awaited<ReturnType<typeof importTrace>>).trace);
      const b = saveTrace((viaFile as Awaited<ReturnType<typeof importTrace>>).trace);
      expect(b.length).toBe(a.length);
      expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).toBe(0);
    }, 30_000); // two imports of a 4 MB export on a loaded 2-core machine pass vitest's 5 s
  }
});

describe('a damaged SQLite file read from disk', () => {
  it('names the page and offset of a b-tree page of the wrong type', async () => {
    const error = await importErrorOf(
      importTrace(bytesAsRandomAccess(readFixture('broken/corrupt-page.sqlite')), {
        fileName: 'corrupt-page.sqlite',
      }),
    );
    expect(error).toMatchObject({ table: 'CUPTI_ACTIVITY_KIND_KERNEL' });
    // Page 3 starts at 2 * 4096 = 8192; its type byte is the first.
    expect(error.message).toMatch(/page 3, offset 8192: expected a table b-tree page .* type 7/);
  });

  it('says a file shorter than its header claims is truncated, naming the header field', async () => {
    const error = await importErrorOf(
      importTrace(bytesAsRandomAccess(readFixture('broken/truncated-pages.sqlite')), {
        fileName: 'truncated-pages.sqlite',
      }),
    );
    expect(error.message).toMatch(
      /file header, offset 28: the header counts 13 pages, but the file holds 10 \(truncated\)/,
    );
  });

  it('reports the older truncated fixture as damaged too', async () => {
    const error = await importErrorOf(
      importTrace(bytesAsRandomAccess(readFixture('broken/truncated.sqlite')), {
        fileName: 'truncated.sqlite',
      }),
    );
    expect(error.message).toMatch(/damaged|truncated/);
  });
});
