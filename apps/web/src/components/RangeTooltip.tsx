import { formatDurationNs } from '@streamscope/trace';
import { getTrace } from '../data/trace-registry.ts';
import { rangeDetails } from '../lib/range-details.ts';
import { useApp } from '../store/use-app.ts';

/** Name, duration, depth and domain of the NVTX, CPU-op or annotation range under the pointer. */
export function RangeTooltip() {
  const traceId = useApp((s) => s.traceId);
  const hovered = useApp((s) => s.hoveredRange);
  const trace = getTrace(traceId);
  const d = trace === undefined || hovered === null ? null : rangeDetails(trace, hovered.range);
  if (d === null || hovered === null) {
    return null;
  }
  const left =
    hovered.clientX + 260 > window.innerWidth ? hovered.clientX - 260 : hovered.clientX + 14;
  return (
    <div
      className="tooltip"
      data-testid="range-tooltip"
      style={{ left, top: hovered.clientY + 14 }}
    >
      <div className="tooltip-name">{d.name}</div>
      <div>
        {d.source} · {d.track}
      </div>
      <div>
        start {formatDurationNs(d.startNs)} · {formatDurationNs(d.durNs)}
      </div>
      <div>
        depth {d.depth} · domain {d.domain}
      </div>
    </div>
  );
}
