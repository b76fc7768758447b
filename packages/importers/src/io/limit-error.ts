import type { ImportErrorPlace } from '../import-error.ts';
import { ImportError } from '../import-error.ts';

/** What a limit of the import counts: the input's bytes, or the ops the trace keeps. */
export type ImportLimitUnit = 'bytes' | 'ops';

/**
 * An input over a limit of the import (the file or what it inflates to, in bytes; or the ops
 * it would keep): the caller may answer it as "too large" and say how to raise `limit`.
 */
export class ImportLimitError extends ImportError {
  constructor(
    place: ImportErrorPlace,
    problem: string,
    readonly limit: number,
    readonly unit: ImportLimitUnit = 'bytes',
    /**
     * What the whole input would keep, where it can be told: a SQLite export's rows by its
     * b-trees (an upper bound), a streamed file's count projected from how far it got.
     */
    readonly wanted?: number,
  ) {
    super(place, problem);
  }
}
