import type { ReplaySource } from '@streamscope/executor';
import { replaySourceBytes } from '@streamscope/executor';

/** Decoded replay sources kept at most, in bytes of their columns (a 2M-op trace is about 90 MB). */
export const defaultReplayCacheBytes = 256 * 1024 * 1024;

interface Held {
  readonly source: ReplaySource;
  readonly bytes: number;
}

/**
 * Stored traces made ready to replay (loaded off the event loop by `load`), the recently used
 * ones kept for the next replay of the same trace. What it holds is capped by the sum of their
 * decoded sizes, not by their number: the least recently used go first, and a source bigger than
 * the whole cap serves its replay and is not kept.
 */
export class ReplaySourceCache {
  private readonly held = new Map<string, Held>();
  private readonly loading = new Map<string, Promise<ReplaySource>>();
  private heldBytes = 0;

  constructor(
    private readonly load: (id: string) => Promise<ReplaySource>,
    readonly capBytes: number = defaultReplayCacheBytes,
  ) {}

  /** Bytes of the sources held now (never above `capBytes`). */
  get bytes(): number {
    return this.heldBytes;
  }

  /** The ids held, least recently used first. */
  ids(): string[] {
    return [...this.held.keys()];
  }

  /** The source of a stored trace: held, being loaded for another replay, or loaded now. */
  async get(id: string): Promise<ReplaySource> {
    const held = this.held.get(id);
    if (held !== undefined) {
      this.held.delete(id);
      this.held.set(id, held);
      return held.source;
    }
    const pending = this.loading.get(id);
    if (pending !== undefined) {
      return pending;
    }
    const loaded = this.load(id).then((source) => {
      this.keep(id, source);
      return source;
    });
    this.loading.set(id, loaded);
    try {
      return await loaded;
    } finally {
      this.loading.delete(id);
    }
  }

  /** Drops a trace's source (it was deleted). */
  forget(id: string): void {
    const held = this.held.get(id);
    if (held !== undefined) {
      this.held.delete(id);
      this.heldBytes -= held.bytes;
    }
  }

  private keep(id: string, source: ReplaySource): void {
    const bytes = replaySourceBytes(source);
    if (bytes > this.capBytes) {
      return;
    }
    this.forget(id);
    for (const [oldest, old] of this.held) {
      if (this.heldBytes + bytes <= this.capBytes) {
        break;
      }
      this.held.delete(oldest);
      this.heldBytes -= old.bytes;
    }
    this.held.set(id, { source, bytes });
    this.heldBytes += bytes;
  }
}
