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

/**
 * What a metric measures in a lesson's words. In these workloads the host issues everything up
 * front, so "launch latency" (launch call to GPU start) is mostly time spent queued behind earlier
 * work on the stream, not the cost of a launch.
 */
export function lessonMetricName(name: string): string {
  return name.replace(/^launch latency/, 'queued before start (launch to GPU start)');
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
            <td>{lessonMetricName(metric.name)}</td>
            <td>{shown(metric, metric.a)}</td>
            <td>{shown(metric, metric.b)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
