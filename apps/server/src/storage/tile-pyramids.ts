import { existsSync } from 'node:fs';
import type { TraceFileRef } from '../workers/protocol.ts';
import { TileFile } from './tile-file.ts';

/** Open tile files kept at once; the least recently used one is closed beyond this. */
const openLimit = 8;

/**
 * The level-of-detail files of stored traces: built once per trace on first use (in a worker,
 * by `build`), kept beside the trace file, opened for reading by offset. Concurrent first uses
 * of one trace share one build.
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
