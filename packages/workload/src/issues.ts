/** One problem in a spec, at its JSON path (`$.threads[0].ops[3].bytes`). */
export interface WorkloadIssue {
  readonly path: string;
  readonly message: string;
}

/** Joins JSON path segments: `$`, `threads`, 0 → `$.threads[0]`. */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let path = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') {
      path += `[${segment}]`;
    } else if (typeof segment === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) {
      path += `.${segment}`;
    } else {
      path += `[${JSON.stringify(String(segment))}]`;
    }
  }
  return path;
}

/**
 * Collects issues, one per path (a loop body that is wrong is reported once, not per
 * iteration), up to a cap so a hostile spec cannot produce a flood.
 */
export class IssueList {
  readonly items: WorkloadIssue[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly cap = 200) {}

  add(path: string, message: string): void {
    if (this.seen.has(path) || this.items.length >= this.cap) {
      return;
    }
    this.seen.add(path);
    this.items.push({ path, message });
  }

  get count(): number {
    return this.items.length;
  }
}
