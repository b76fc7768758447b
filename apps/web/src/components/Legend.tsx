import { useEffect, useRef, useState } from 'react';
import { gapLegend, opLegend } from '@streamscope/timeline';

/**
 * What each colour means; the same colours the canvas and the exports use. It opens over the
 * summary beside the timeline, so a click anywhere else (the timeline, the summary) closes it.
 */
export function Legend() {
  const ref = useRef<HTMLDetailsElement>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) {
      return;
    }
    const onPointerDown = (event: PointerEvent): void => {
      const details = ref.current;
      if (details !== null && !(event.target instanceof Node && details.contains(event.target))) {
        details.open = false;
      }
    };
    window.addEventListener('pointerdown', onPointerDown, true);
    return () => window.removeEventListener('pointerdown', onPointerDown, true);
  }, [open]);
  return (
    <details className="legend" ref={ref} onToggle={(e) => setOpen(e.currentTarget.open)}>
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
