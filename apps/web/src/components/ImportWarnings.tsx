/**
 * What an import recovered from (a truncated file, a missing string table, dropped records): the
 * trace opened, but a reader should know what it lacks. Shown after an import and in the view.
 */
export function ImportWarnings({
  warnings,
  testId,
}: {
  warnings: readonly string[];
  testId: string;
}) {
  if (warnings.length === 0) {
    return null;
  }
  return (
    <details className="warn-box" data-testid={testId} open={warnings.length <= 3}>
      <summary>
        {warnings.length === 1 ? '1 warning' : `${warnings.length} warnings`} from the import
      </summary>
      <ul>
        {warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </details>
  );
}
