import { gapLegend, opLegend } from '@streamscope/timeline';

/** What each colour means; the same colours the canvas and the exports use. */
export function Legend() {
  return (
    <details className="legend">
      <summary>Legend</summary>
      <ul className="plain legend-list" data-testid="legend">
        {[...opLegend, ...gapLegend].map((entry) => (
          <li key={entry.id}>
            <span className="swatch" style={{ background: entry.css }} />
            {entry.label}
          </li>
        ))}
      </ul>
    </details>
  );
}
