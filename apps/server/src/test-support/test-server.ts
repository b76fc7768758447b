import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiError } from '../http/api-error.ts';
import type { WorkloadService } from '../http/services.ts';
import type { RunningServer, StartOptions } from '../server.ts';
import { startServer } from '../server.ts';
import { controlledBackends } from './controlled-backend.ts';
import { checkResponse } from './openapi-check.ts';

/** A workload service for tests: a workload is `{name: string, ...}`; one preset, `demo`. */
export const testWorkloads: WorkloadService = {
  validate(json) {
    const name = (json as { name?: unknown } | null)?.name;
    return typeof name === 'string'
      ? { ok: true }
      : { ok: false, errors: [{ path: '$.name', message: 'must be a string' }] };
  },
  presets: () => [{ name: 'demo', title: 'Demo', description: 'a test preset', params: [] }],
  build(name, params) {
    if (name !== 'demo') {
      throw new ApiError(422, 'unknown-preset', `no preset '${name}'`, '$.preset');
    }
    return { workload: { name: 'demo', ...params }, title: 'Demo' };
  },
};

export interface TestServer {
  readonly server: RunningServer;
  readonly backends: ReturnType<typeof controlledBackends>;
  readonly base: string;
  readonly liveUrl: string;
  readonly dataDir: string;
  /** A JSON API call whose response is checked against openapi.yaml (`route` is its template). */
  api(
    method: string,
    url: string,
    route: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }>;
  restart(): Promise<TestServer>;
  close(): Promise<void>;
}

const quickTiming = {
  minFrameIntervalMs: 0,
  progressIntervalMs: 20,
  watchdogGraceMs: 50,
  heartbeatMs: 60_000,
};

/** Starts the real server on 127.0.0.1, a free port and a temporary data directory. */
export async function startTestServer(
  overrides: Partial<StartOptions> = {},
  dataDir?: string,
): Promise<TestServer> {
  const dir = dataDir ?? (await mkdtemp(path.join(tmpdir(), 'streamscope-server-')));
  const backends = controlledBackends();
  const server = await startServer({
    dataDir: dir,
    backendSet: backends.set,
    port: 0,
    workloads: testWorkloads,
    timing: quickTiming,
    webDistDir: path.join(dir, 'no-web-build'),
    ...overrides,
  });
  const base = `http://127.0.0.1:${server.port}`;
  const self: TestServer = {
    server,
    backends,
    base,
    liveUrl: `ws://127.0.0.1:${server.port}/api/live`,
    dataDir: dir,
    async api(method, url, route, body) {
      const init: RequestInit = { method };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        init.headers = { 'content-type': 'application/json' };
      }
      const response = await fetch(`${base}${url}`, init);
      const text = await response.text();
      const parsed: unknown = text === '' ? undefined : JSON.parse(text);
      checkResponse(method, route, response.status, parsed);
      return { status: response.status, body: parsed };
    },
    async restart() {
      await server.close();
      return startTestServer(overrides, dir);
    },
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return self;
}
