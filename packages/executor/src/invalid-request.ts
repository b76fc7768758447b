/** One problem in a run request, at its JSON path. */
export interface RequestIssue {
  readonly path: string;
  readonly message: string;
}

/** Thrown by `Backend.start` for a workload that does not validate; carries every issue. */
export class InvalidRunRequest extends Error {
  override readonly name = 'InvalidRunRequest';
  constructor(readonly issues: readonly RequestIssue[]) {
    super(
      `invalid workload: ${issues
        .slice(0, 5)
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ')}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}`,
    );
  }
}

export function invalidWorkload(issues: readonly RequestIssue[]): InvalidRunRequest {
  return new InvalidRunRequest(issues);
}
