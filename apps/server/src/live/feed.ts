/** One message for a subscriber: a binary frame, or a JSON control message as text. */
export interface Outgoing {
  readonly data: Buffer | string;
  readonly binary: boolean;
}

/**
 * What one subscription sends from: a cursor into a live run's shared log, or a reader of a
 * stored run's file. `next` may read (a stored run reads its frames from disk as the socket drains).
 */
export interface SubscriptionSource {
  /** The next message; undefined when there is none yet (a live run) or none left (`ended`). */
  next(): Outgoing | undefined | Promise<Outgoing | undefined>;
  /** Nothing will come after the last message returned. */
  readonly ended: boolean;
  /** Calls `listener` when a message becomes available; returns what removes it. */
  onAppend(listener: () => void): () => void;
  /** Bytes held in memory for this subscriber alone (a shared log counts 0). */
  readonly heldBytes: number;
  /** Files held open for this subscriber. */
  readonly openFiles: number;
  /** Lets go of what it holds; no message is asked for afterwards. */
  close(): void;
}

/** A run a client may subscribe to, live or stored. */
export interface RunFeed {
  readonly status: string;
  /** Binary frames the run has sent (a resume may ask for any seq up to this). */
  readonly frameCount: number;
  /** A source for one subscriber, starting at frame `fromSeq` (0 ≤ fromSeq ≤ frameCount). */
  open(fromSeq: number): Promise<SubscriptionSource>;
}
