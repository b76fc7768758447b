import type { WorkloadIssue } from '@streamscope/workload';
import { validateWorkload } from '@streamscope/workload';
import type { TaskResult } from './task-context.ts';

/** A workload spec checked and expanded; only the verdict goes back (a plan may hold 2M ops). */
export function validateTask(workload: unknown): TaskResult {
  const checked = validateWorkload(workload);
  const result: { ok: true } | { ok: false; errors: readonly WorkloadIssue[] } = checked.ok
    ? { ok: true }
    : { ok: false, errors: checked.errors };
  return { result };
}
