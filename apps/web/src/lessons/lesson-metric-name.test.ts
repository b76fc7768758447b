import { describe, expect, it } from 'vitest';
import { lessonMetricName } from './LessonMetrics.tsx';

describe('lesson metric names', () => {
  it('calls launch-to-start time what it is in a lesson: time queued behind earlier work', () => {
    expect(lessonMetricName('launch latency p50')).toBe(
      'queued before start (launch to GPU start) p50',
    );
    expect(lessonMetricName('makespan')).toBe('makespan');
  });
});
