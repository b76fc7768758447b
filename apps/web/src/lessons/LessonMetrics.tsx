import type { MetricDelta } from '@streamscope/analysis';
import { formatDurationNs } from '@streamscope/trace';
import { useStore } from 'zustand';
import { lessonStore } from './lesson-store.ts';

function shown(metric: MetricDelta, value: number): string {
  if (metric.unit === 'ns') {
    return formatDurationNs(value);
  }
  if (metric.unit === 'ratio') {
    return `${Math.round(value * 100)}%`;
  }
  return String(value);
}

/** compareTraces' metric differences: only the metrics the change moved. */
export function LessonMetrics() {
  const metrics = useStore(lessonStore, (s) => s.summary?.metrics);
  const moved = (metrics ?? []).filter((m) => m.a !== m.b);
  if (moved.length === 0) {
    return null;
  }
  return (
    <table className="lesson-metrics" data-testid="lesson-metrics">
      <thead>
        <tr>
          <th>metric</th>
          <th>before</th>
          <th>after</th>
        </tr>
      </thead>
      <tbody>
        {moved.map((metric) => (
          <tr key={metric.name}>
            <td>{metric.name}</td>
            <td>{shown(metric, metric.a)}</td>
            <td>{shown(metric, metric.b)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
