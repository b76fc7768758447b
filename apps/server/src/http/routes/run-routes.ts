import type { Router } from 'express';
import { ApiError } from '../api-error.ts';
import { strictRouter } from '../api-router.ts';
import { idParam, jsonObjectBody } from '../params.ts';
import type { AppServices } from '../services.ts';
import { parseRunRequest } from './run-request.ts';

/** Start and cancel runs. */
export function runRoutes(services: AppServices): Router {
  const router = strictRouter();

  router.post('/runs', async (req, res) => {
    const body = jsonObjectBody(req);
    const submission = await parseRunRequest(
      body,
      services.limits,
      services.defaultBackend,
      services.workloads,
    );
    if (services.runs.queuedCount() >= services.limits.maxQueuedRuns) {
      throw new ApiError(
        429,
        'queue-full',
        `${services.limits.maxQueuedRuns} runs are already waiting`,
      );
    }
    const { id, position } = await services.runs.submit(submission);
    res.status(202).location(`/api/traces/${id}`).json({ id, status: 'queued', position });
  });

  router.post('/runs/:id/cancel', (req, res) => {
    const id = idParam(req);
    const outcome = services.runs.cancel(id);
    res.status(202).json({ id, status: outcome });
  });

  return router;
}
