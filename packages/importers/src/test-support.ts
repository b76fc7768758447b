// Test-only helpers (Node): read the committed fixtures. Not exported from index.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ImportError } from './import-error.ts';
import type { ImportOptions, ImportResult } from './import-trace.ts';
import { importTrace } from './import-trace.ts';

export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../../../fixtures/${relative}`, import.meta.url));
}

export function readFixture(relative: string): Uint8Array {
  const buffer = readFileSync(fixturePath(relative));
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

export function importFixture(
  relative: string,
  options: Partial<ImportOptions> = {},
): Promise<ImportResult> {
  return importTrace(readFixture(relative), { fileName: relative, ...options });
}

/** The ImportError an import rejects with (fails the test if it resolves or throws anything else). */
export async function importErrorOf(promise: Promise<unknown>): Promise<ImportError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ImportError) {
      return error;
    }
    throw new Error(`expected an ImportError, got ${String(error)}`);
  }
  throw new Error('expected the import to fail, but it succeeded');
}
