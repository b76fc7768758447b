import type { Router } from 'express';
import { ApiError } from '../api-error.ts';
import { strictRouter } from '../api-router.ts';
import { jsonObjectBody } from '../params.ts';
import type { AppServices } from '../services.ts';

/** Health, backends, presets and workload validation. */
export function metaRoutes(services: AppServices): Router {
  const router = strictRouter();

  router.get('/health', (_req, res) => {
    res.json({
      ok: true,
      version: services.version,
      defaultBackend:
        services.defaultBackend === 'auto' ? services.autoBackend.name : services.defaultBackend,
      reason:
        services.defaultBackend === 'auto'
          ? services.autoBackend.reason
          : `the server was started with --backend ${services.defaultBackend}`,
      auth: services.policy.token === undefined ? 'none' : 'token',
    });
  });

  router.get('/backends', async (_req, res) => {
    const backends = Object.values(services.backendSet.backends);
    res.json(await Promise.all(backends.map((backend) => backend.status())));
  });

  router.get('/devices', async (_req, res) => {
    const { probe, profiles } = services.backendSet;
    res.json({
      probe: probe === undefined ? null : await probe(),
      profiles: profiles === undefined ? [] : profiles(),
    });
  });

  router.get('/presets', (_req, res) => {
    res.json(requireWorkloads(services).presets());
  });

  router.post('/workloads/validate', (req, res) => {
    const body = jsonObjectBody(req);
    // Expanded in a worker thread where the service has one: awaited, never blocking.
    return Promise.resolve(requireWorkloads(services).validate(body)).then((result) => {
      res.json(result.ok ? { ok: true, errors: [] } : { ok: false, errors: result.errors });
    });
  });

  return router;
}

export function requireWorkloads(services: AppServices): NonNullable<AppServices['workloads']> {
  if (services.workloads === undefined) {
    throw new ApiError(501, 'not-available', 'workload specs are not available in this build');
  }
  return services.workloads;
}
