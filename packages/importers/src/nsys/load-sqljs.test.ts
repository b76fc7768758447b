import { describe, expect, it } from 'vitest';
import { readFixture } from '../test-support.ts';
import { loadSqlJs, openOwnedDatabase } from './load-sqljs.ts';

/** Every place `needle` occurs in `haystack`. */
function indicesOf(haystack: Uint8Array, needle: Uint8Array): number[] {
  const found: number[] = [];
  const text = Buffer.from(haystack.buffer, haystack.byteOffset, haystack.length);
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    found.push(at);
  }
  return found;
}

describe('openOwnedDatabase', () => {
  it('reads the very bytes it was given, not a copy of them', async () => {
    const SQL = await loadSqlJs();
    const file = readFixture('nsys/2025.3.1/train.sqlite');
    // The longest string of the export, to find its bytes in the file.
    const probe = new SQL.Database(file);
    const [id, value] = probe.exec(
      'SELECT id, value FROM StringIds ORDER BY length(value) DESC LIMIT 1',
    )[0]!.values[0] as [number, string];
    probe.close();
    expect(value.length).toBeGreaterThan(20);

    const bytes = Uint8Array.from(file);
    const db = openOwnedDatabase(SQL, bytes);
    try {
      // Written after opening, before any page is read: only a database reading `bytes` sees it.
      const at = indicesOf(bytes, Buffer.from(value));
      expect(at.length).toBeGreaterThan(0);
      for (const i of at) {
        bytes[i] = 'Z'.charCodeAt(0);
      }
      const read = db.exec(`SELECT value FROM StringIds WHERE id = ${id}`)[0]!.values[0]![0];
      expect(read).toBe(`Z${value.slice(1)}`);
    } finally {
      db.close();
    }
  });
});
