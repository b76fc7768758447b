import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { TraceFileRef } from '../workers/protocol.ts';
import { TileFile } from './tile-file.ts';
import { isOlderTileFileAt } from './tile-format.ts';

/** Open tile files kept at once; the least recently used one is closed beyond this. */
const openLimit = 8;

/**
 * The level-of-detail files of stored traces, kept beside the trace file and opened for reading
 * by offset. A big trace's is made at import (pyramidAtImport, then adoptPyramid); any other's
 * (a small trace, one stored before pyramids were made at import, or one of an older format) is
 * built on first use, in a worker, by `build`. Concurrent first uses of one trace share one build.
 */
export class TilePyramids {
  private readonly open = new Map<string, TileFile>();
  private readonly building = new Map<string, Promise<void>>();

  constructor(
    private readonly pathOf: (id: string) => string,
    private readonly build: (trace: TraceFileRef, outPath: string) => Promise<void>,
  ) {}

  /** The trace's tile file, built first when there is none (or it went with its trace). */
  async get(id: string, trace: TraceFileRef): Promise<TileFile> {
    const filePath = this.pathOf(id);
    const cached = this.open.get(id);
    if (cached !== undefined) {
      if (existsSync(filePath)) {
        this.open.delete(id);
        this.open.set(id, cached);
        return cached;
      }
      this.forget(id);
    }
    if (existsSync(filePath) && (await isOlderTileFileAt(filePath))) {
      await rm(filePath, { force: true });
    }
    if (!existsSync(filePath)) {
      let pending = this.building.get(id);
      if (pending === undefined) {
        pending = this.build(trace, filePath).finally(() => this.building.delete(id));
        this.building.set(id, pending);
      }
      await pending;
    }
    const again = this.open.get(id);
    if (again !== undefined) {
      return again;
    }
    const file = await TileFile.open(filePath);
    const raced = this.open.get(id);
    if (raced !== undefined) {
      file.close();
      return raced;
    }
    this.open.set(id, file);
    while (this.open.size > openLimit) {
      const oldest = this.open.keys().next().value!;
      this.forget(oldest);
    }
    return file;
  }

  /** Closes the trace's tile file (its trace was removed, or it fell out of the open set). */
  forget(id: string): void {
    this.open.get(id)?.close();
    this.open.delete(id);
  }

  closeAll(): void {
    for (const id of [...this.open.keys()]) {
      this.forget(id);
    }
  }
}

/**
 * Moves a pyramid made at import (`builtPath`, beside the upload) to `finalPath`, beside the
 * trace just stored. A failure removes it and is not the import's: the first open builds one.
 */
export async function adoptPyramid(
  builtPath: string | undefined,
  finalPath: string,
  log: (line: string) => void,
): Promise<void> {
  if (builtPath === undefined) {
    return;
  }
  try {
    await rename(builtPath, finalPath);
  } catch (error) {
    log(
      `the tiles made at import were not kept (${(error as Error).message}); a first open builds them`,
    );
    await rm(builtPath, { force: true });
  }
}
