import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/** Suffix of files being written; startup recovery deletes any left by a crash. */
export const tempSuffix = '.tmp';

/**
 * Writes a file so that readers see either the old content or the whole new content, never a
 * prefix: write a temp file beside it, fsync it, then rename over the target (atomic on POSIX).
 */
export async function writeFileAtomic(filePath: string, data: Uint8Array | string): Promise<void> {
  const tempPath = `${filePath}.${randomBytes(6).toString('hex')}${tempSuffix}`;
  const handle = await open(tempPath, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tempPath, filePath);
  } catch (error) {
    // A write that failed (a full disk) leaves nothing behind, not even until the next start.
    await rm(tempPath, { force: true });
    throw error;
  }
}
