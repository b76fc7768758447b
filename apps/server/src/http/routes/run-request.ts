import type { BackendChoice } from '@streamscope/executor';
import type { ServerLimits } from '../../config.ts';
import type { RunSubmission } from '../../runs/run-manager.ts';
import { isValidId } from '../../storage/trace-store.ts';
import { ApiError, badRequest } from '../api-error.ts';
import type { WorkloadService } from '../services.ts';

/** The slowest a realtime run may be played: GPU time 1000× slower than wall time. */
const maxSlowdown = 1000;
const backendChoices: readonly BackendChoice[] = ['auto', 'sim', 'cuda', 'replay'];
const knownFields = new Set([
  'workload',
  'preset',
  'params',
  'backend',
  'target',
  'pace',
  'slowdown',
  'timeLimitMs',
  'title',
  'replayOf',
]);

/**
 * Validates a POST /api/runs body into a submission; every error names its JSON path. A spec
 * is expanded by the workload service (in a worker thread where it has one).
 */
export async function parseRunRequest(
  body: Readonly<Record<string, unknown>>,
  limits: ServerLimits,
  defaultBackend: BackendChoice,
  workloads: WorkloadService | undefined,
): Promise<RunSubmission> {
  for (const key of Object.keys(body)) {
    if (!knownFields.has(key)) {
      throw badRequest(`unknown field '${key}'`, `$.${key}`);
    }
  }
  const backend = body['backend'] ?? defaultBackend;
  if (typeof backend !== 'string' || !backendChoices.includes(backend as BackendChoice)) {
    throw badRequest(`backend must be one of ${backendChoices.join(', ')}`, '$.backend');
  }
  const target = optionalString(body, 'target', 64);
  const title = optionalString(body, 'title', 200);
  const pace = body['pace'] ?? 'realtime';
  if (pace !== 'realtime' && pace !== 'fast') {
    throw badRequest("pace must be 'realtime' or 'fast'", '$.pace');
  }
  const slowdown = body['slowdown'] ?? 1;
  if (typeof slowdown !== 'number' || !(slowdown >= 1 && slowdown <= maxSlowdown)) {
    throw badRequest(`slowdown must be a number in [1, ${maxSlowdown}]`, '$.slowdown');
  }
  if (slowdown !== 1 && pace !== 'realtime') {
    throw badRequest("slowdown goes with pace 'realtime'", '$.slowdown');
  }
  const timeLimitMs = body['timeLimitMs'] ?? limits.defaultRunMs;
  if (
    typeof timeLimitMs !== 'number' ||
    !Number.isInteger(timeLimitMs) ||
    timeLimitMs < 1 ||
    timeLimitMs > limits.maxRunMs
  ) {
    throw badRequest(`timeLimitMs must be an integer in [1, ${limits.maxRunMs}]`, '$.timeLimitMs');
  }
  const replayOf = optionalString(body, 'replayOf', 64);
  if (replayOf !== undefined && !isValidId(replayOf)) {
    throw badRequest('replayOf must be a trace id', '$.replayOf');
  }
  const common = {
    backend: backend as BackendChoice,
    pace,
    slowdown,
    timeLimitMs,
    ...(target !== undefined ? { target } : {}),
    ...(replayOf !== undefined ? { replayOf } : {}),
  } as const;

  if (backend === 'replay') {
    if (replayOf === undefined) {
      throw badRequest("a replay run needs 'replayOf': the id of a stored trace", '$.replayOf');
    }
    return { ...common, workload: null, title: title ?? `replay of ${replayOf}` };
  }
  const preset = body['preset'];
  const workload = body['workload'];
  if ((preset === undefined) === (workload === undefined)) {
    throw badRequest("give exactly one of 'workload' and 'preset'", '$');
  }
  if (workloads === undefined) {
    throw new ApiError(501, 'not-available', 'workload specs are not available in this build');
  }
  if (preset !== undefined) {
    if (typeof preset !== 'string' || preset.length === 0 || preset.length > 64) {
      throw badRequest('preset must be a preset name', '$.preset');
    }
    const params = body['params'] ?? {};
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      throw badRequest('params must be an object of parameter values', '$.params');
    }
    const built = workloads.build(preset, params as Record<string, unknown>);
    return { ...common, workload: built.workload, title: title ?? built.title, preset };
  }
  if (body['params'] !== undefined) {
    throw badRequest("params go with 'preset', not with 'workload'", '$.params');
  }
  const result = await workloads.validate(workload);
  if (!result.ok) {
    const first = result.errors[0];
    throw new ApiError(
      422,
      'invalid-workload',
      result.errors.map((e) => `${e.path}: ${e.message}`).join('; '),
      first === undefined ? '$.workload' : `$.workload${first.path.replace(/^\$/, '')}`,
    );
  }
  return { ...common, workload, title: title ?? workloadName(workload) };
}

function optionalString(
  body: Readonly<Record<string, unknown>>,
  key: string,
  maxLength: number,
): string | undefined {
  const value = body[key];
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw badRequest(`${key} must be a string of 1 to ${maxLength} characters`, `$.${key}`);
  }
  return value;
}

function workloadName(workload: unknown): string {
  const name = (workload as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name.slice(0, 200) : 'workload';
}
