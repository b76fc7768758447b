/** Where in an input a problem is. Every field but `file` is optional: the more, the better. */
export interface ImportErrorPlace {
  readonly file: string;
  /** 1-based line (nsys JSON) or event number (Chrome trace, with `path`). */
  readonly line?: number;
  /** SQLite table. */
  readonly table?: string;
  /** Field or column name. */
  readonly field?: string;
  /** JSON path, e.g. `traceEvents[12].ts`. */
  readonly path?: string;
}

/** An input that cannot be imported, with the place that made it so. Never thrown for a bug. */
export class ImportError extends Error implements ImportErrorPlace {
  override readonly name = 'ImportError';
  readonly file: string;
  readonly line?: number;
  readonly table?: string;
  readonly field?: string;
  readonly path?: string;
  /** The bare problem, without the place (`message` has both). */
  readonly problem: string;

  constructor(place: ImportErrorPlace, problem: string) {
    super(`${describePlace(place)}: ${problem}`);
    this.file = place.file;
    this.problem = problem;
    if (place.line !== undefined) {
      this.line = place.line;
    }
    if (place.table !== undefined) {
      this.table = place.table;
    }
    if (place.field !== undefined) {
      this.field = place.field;
    }
    if (place.path !== undefined) {
      this.path = place.path;
    }
  }
}

/** `trace.json line 12, field startNs` / `run.sqlite table NVTX_EVENTS, column end`. */
export function describePlace(place: ImportErrorPlace): string {
  const parts = [place.file];
  if (place.line !== undefined) {
    parts.push(`line ${place.line}`);
  }
  if (place.table !== undefined) {
    parts.push(`table ${place.table}`);
  }
  if (place.path !== undefined) {
    parts.push(`at ${place.path}`);
  }
  if (place.field !== undefined) {
    parts.push(`${place.table !== undefined ? 'column' : 'field'} ${place.field}`);
  }
  return parts.join(', ');
}
