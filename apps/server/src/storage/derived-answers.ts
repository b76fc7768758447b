/**
 * Answers computed from a whole stored trace (its analysis, its range-lane summaries), kept while
 * the server runs: a stored trace never changes, and at 139M ops the analysis took 5 minutes and
 * 14 GB in a worker, which every open of the trace asked for again. Concurrent askers of one
 * answer share one computation, and an answer whose asker went away is still kept for the next
 * one. Least recently used answers go first past `budgetBytes`; an answer bigger than the
 * budget is served but not kept. A trace's answers go when it is deleted.
 */
export class DerivedAnswers {
  private readonly kept = new Map<string, string>();
  private readonly pending = new Map<string, Promise<string>>();
  /** Answers being computed for a trace deleted meanwhile: not kept when they come. */
  private readonly forgotten = new Set<string>();
  private keptBytes = 0;

  constructor(readonly budgetBytes: number) {}

  /** The answer `kind` of trace `id`: kept, being computed, or computed now by `compute`. */
  answer(id: string, kind: string, compute: () => Promise<string>): Promise<string> {
    const key = `${id}\u0000${kind}`;
    const kept = this.kept.get(key);
    if (kept !== undefined) {
      // Most recently used last: Map keeps insertion order.
      this.kept.delete(key);
      this.kept.set(key, kept);
      return Promise.resolve(kept);
    }
    const running = this.pending.get(key);
    if (running !== undefined) {
      return running;
    }
    const started = compute().then(
      (answer) => {
        this.pending.delete(key);
        this.keep(key, answer);
        return answer;
      },
      (error: unknown) => {
        this.pending.delete(key);
        this.forgotten.delete(key);
        throw error;
      },
    );
    this.pending.set(key, started);
    return started;
  }

  /** Drops trace `id`'s answers (an answer still being computed for it is not kept). */
  forget(id: string): void {
    const prefix = `${id}\u0000`;
    for (const [key, answer] of this.kept) {
      if (key.startsWith(prefix)) {
        this.kept.delete(key);
        this.keptBytes -= bytesOf(answer);
      }
    }
    for (const key of this.pending.keys()) {
      if (key.startsWith(prefix)) {
        this.forgotten.add(key);
      }
    }
  }

  /** Kept answers' sizes in UTF-16 bytes (what they hold in memory). */
  get bytes(): number {
    return this.keptBytes;
  }

  private keep(key: string, answer: string): void {
    if (this.forgotten.delete(key)) {
      return;
    }
    const size = bytesOf(answer);
    if (size > this.budgetBytes) {
      return;
    }
    for (const [oldest, old] of this.kept) {
      if (this.keptBytes + size <= this.budgetBytes) {
        break;
      }
      this.kept.delete(oldest);
      this.keptBytes -= bytesOf(old);
    }
    this.kept.set(key, answer);
    this.keptBytes += size;
  }
}

function bytesOf(answer: string): number {
  return answer.length * 2;
}
