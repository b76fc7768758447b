import type { ImportErrorPlace } from '../import-error.ts';
import { ImportError } from '../import-error.ts';

/**
 * An input over a size limit of the import (the file, or what it inflates to): the caller may
 * answer it as "too large" and say how to raise `limitBytes`.
 */
export class ImportLimitError extends ImportError {
  constructor(
    place: ImportErrorPlace,
    problem: string,
    readonly limitBytes: number,
  ) {
    super(place, problem);
  }
}
