import type { JsonObject } from './guards.ts';
import { arr, isObject, num, objects, optNum, optStr, str } from './guards.ts';

/** A stored trace as GET /api/traces lists it. */
export interface TraceEntry {
  readonly id: string;
  readonly source: 'run' | 'import';
  readonly title: string;
  readonly status: string;
  readonly createdAt: string;
  readonly opCount: number;
  readonly spanNs: number;
  readonly format: string;
  readonly backend: string;
  readonly reason: string;
  /** A run's device profile (sim) or device (cuda); '' when none was named. */
  readonly target: string;
  /** What an import recovered from (truncation, missing names); empty when nothing. */
  readonly warnings: readonly string[];
}

export function parseTraceEntry(o: JsonObject): TraceEntry {
  return {
    id: str(o, 'id'),
    source: str(o, 'source') === 'import' ? 'import' : 'run',
    title: str(o, 'title', str(o, 'id')),
    status: str(o, 'status', 'ready'),
    createdAt: str(o, 'createdAt'),
    opCount: num(o, 'opCount'),
    spanNs: num(o, 'spanNs'),
    format: str(o, 'format'),
    backend: str(o, 'backend'),
    reason: str(o, 'reason'),
    target: str(o, 'target'),
    warnings: arr(o, 'warnings').filter((w): w is string => typeof w === 'string'),
  };
}

export interface PresetParam {
  readonly name: string;
  readonly type: string;
  readonly default: unknown;
  readonly min?: number;
  readonly max?: number;
  readonly options: readonly string[];
  readonly description: string;
}

export interface Preset {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly params: readonly PresetParam[];
  /** The parameter that switches the lesson's pitfall on and off. */
  readonly pitfallParam?: string;
}

export function parsePreset(o: JsonObject): Preset {
  return {
    name: str(o, 'name'),
    title: str(o, 'title', str(o, 'name')),
    description: str(o, 'description'),
    params: objects(arr(o, 'params')).map((p) => ({
      name: str(p, 'name'),
      type: str(p, 'type', 'number'),
      default: p['default'],
      min: optNum(p, 'min'),
      max: optNum(p, 'max'),
      options: arr(p, 'options').map(String),
      description: str(p, 'description'),
    })),
    pitfallParam: optStr(o, 'pitfallParam'),
  };
}

export interface BackendInfo {
  readonly name: string;
  readonly available: boolean;
  readonly reason: string;
  /** Device profiles (sim) or devices (cuda) a run can target. */
  readonly targets: readonly string[];
}

export function parseBackend(o: JsonObject): BackendInfo {
  const targets = [...arr(o, 'targets'), ...arr(o, 'profiles'), ...arr(o, 'devices')].map((t) =>
    isObject(t) ? str(t, 'name', str(t, 'id')) : String(t),
  );
  return {
    name: str(o, 'name', str(o, 'id')),
    available: o['available'] !== false,
    reason: str(o, 'reason'),
    targets: targets.filter((t) => t !== ''),
  };
}

export interface ValidationError {
  /** JSON path of the offending value, e.g. "/streams/1/ops/0/bytes". */
  readonly path: string;
  readonly message: string;
}

export function parseValidationErrors(value: unknown): ValidationError[] {
  if (!isObject(value)) {
    return [];
  }
  return objects(arr(value, 'errors')).map((e) => ({
    path: str(e, 'path'),
    message: str(e, 'message'),
  }));
}

/** `{error: {code, message, path?}}` as every failing API answers. */
export interface ApiErrorBody {
  readonly code: string;
  readonly message: string;
  readonly path?: string;
}

export function parseApiError(value: unknown): ApiErrorBody | null {
  if (!isObject(value)) {
    return null;
  }
  const e = value['error'];
  if (isObject(e)) {
    return { code: str(e, 'code', 'error'), message: str(e, 'message'), path: optStr(e, 'path') };
  }
  if (typeof e === 'string') {
    return { code: 'error', message: e };
  }
  return null;
}

export interface Finding {
  readonly ruleId: string;
  readonly severity: string;
  readonly title: string;
  readonly message: string;
  readonly opIndices: readonly number[];
  /** The ops it points at in all (more than `opIndices` holds when the analysis capped them). */
  readonly opCount: number;
  readonly estimatedSavingNs: number;
}

export interface StreamUtilization {
  readonly track: number;
  readonly label: string;
  readonly busyNs: number;
  /** busyNs / analysed span, in [0, 1]. */
  readonly utilization: number;
}

/** A gap as the analysis lists it: a stream (or the device, track -1) idle, and why. */
export interface GapItem {
  readonly track: number;
  readonly fromNs: number;
  readonly toNs: number;
  readonly cause: string;
  readonly detail: string;
  /** The op that explains the gap (what the stream waited for), or -1. */
  readonly causeOp: number;
}

/** One training step as the summary lists it (`StepMetrics` of @streamscope/analysis). */
export interface StepRow {
  readonly name: string;
  /** The rank whose step it is, in a trace merged from several ranks. */
  readonly rank?: number;
  readonly startNs: number;
  readonly stepNs: number;
  readonly gpuBusyNs: number;
  /** Collectives; a pipeline stage's sends and receives are `pointToPointNs`, set when any. */
  readonly communicationNs: number;
  readonly exposedCommunicationNs: number;
  readonly pointToPointNs?: number;
  readonly idleNs: number;
}

export interface StepSummary {
  readonly pattern: string;
  readonly count: number;
  readonly meanStepNs: number;
  readonly medianStepNs: number;
  readonly maxStepNs: number;
  /** The longest steps, longest first. */
  readonly slowest: readonly StepRow[];
  /**
   * Steps longer than the GPU's whole span because the host and GPU clocks disagree
   * (launch-links-disagree): their time is the mismatch, not work.
   */
  readonly skewedSteps: readonly string[];
}

/** What the trace view shows of GET /api/traces/:id/analysis. */
export interface TraceAnalysis {
  readonly makespanNs: number;
  readonly gpuOpCount: number;
  readonly deviceBusyNs: number;
  /** Share of the makespan with any GPU work, [0, 1]. */
  readonly deviceUtilization: number;
  /** |∪copies ∩ ∪kernels| / |∪copies|, [0, 1]; 0 without copies (see copyBusyNs). */
  readonly copyComputeOverlap: number;
  /** |∪copies| in ns: 0 when the run has no copies, and the overlap above means nothing. */
  readonly copyBusyNs: number;
  /** Time covered by compute, communication (NCCL/RCCL) and memory kernels, in ns. */
  readonly computeNs: number;
  readonly communicationNs: number;
  readonly memoryKernelNs: number;
  /** |∪communication ∩ ∪compute| / |∪communication|; null when there is no communication. */
  readonly commComputeOverlap: number | null;
  readonly exposedCommunicationNs: number;
  /** Time some stream's launch queue was full (the host blocks on a launch). */
  readonly launchQueueFullNs: number;
  readonly steps: StepSummary;
  readonly streams: readonly StreamUtilization[];
  /** Idle stretches of each stream between its ops, counted per stream (their sum). */
  readonly gapCount: number;
  readonly gapTotalNs: number;
  /** Stretches with no stream of a GPU busy (the gpu-gaps finding counts those ≥ its threshold). */
  readonly gpuGapCount: number;
  readonly gpuGapTotalNs: number;
  readonly gapNsByCause: readonly { readonly cause: string; readonly ns: number }[];
  readonly gaps: readonly GapItem[];
  readonly findings: readonly Finding[];
}

function objectAt(o: JsonObject, key: string): JsonObject {
  const v = o[key];
  return isObject(v) ? v : {};
}

function parseStep(o: JsonObject): StepRow {
  const rank = o['rank'];
  const pointToPointNs = optNum(o, 'pointToPointNs') ?? 0;
  return {
    name: str(o, 'name'),
    ...(typeof rank === 'number' ? { rank } : {}),
    startNs: num(o, 'startNs'),
    stepNs: num(o, 'stepNs'),
    gpuBusyNs: num(o, 'gpuBusyNs'),
    communicationNs: num(o, 'communicationNs'),
    exposedCommunicationNs: num(o, 'exposedCommunicationNs'),
    ...(pointToPointNs > 0 ? { pointToPointNs } : {}),
    idleNs: num(o, 'idleNs'),
  };
}

export function parseAnalysis(value: unknown): TraceAnalysis {
  const root = isObject(value) ? value : {};
  const metrics = objectAt(root, 'metrics');
  const overlap = objectAt(metrics, 'overlap');
  const classes = objectAt(metrics, 'kernelClasses');
  const steps = objectAt(root, 'steps');
  const streamGaps = objectAt(objectAt(root, 'gaps'), 'stream');
  const deviceGaps = objectAt(objectAt(root, 'gaps'), 'device');
  const nsByCause = objectAt(streamGaps, 'nsByCause');
  const findings = objects(arr(root, 'findings')).map((f) => {
    const opIndices = arr(f, 'opIndices').filter((i): i is number => typeof i === 'number');
    return {
      ruleId: str(f, 'ruleId'),
      severity: str(f, 'severity', 'info'),
      title: str(f, 'title', str(f, 'ruleId')),
      message: str(f, 'message'),
      opIndices,
      // An analysis from before the count: the ops it lists are all it says.
      opCount: Math.max(opIndices.length, num(f, 'opCount')),
      estimatedSavingNs: num(f, 'estimatedSavingNs'),
    };
  });
  return {
    makespanNs: num(metrics, 'makespanNs'),
    gpuOpCount: num(metrics, 'gpuOpCount'),
    deviceBusyNs: num(metrics, 'deviceBusyNs'),
    deviceUtilization: num(metrics, 'deviceUtilization'),
    copyComputeOverlap: num(overlap, 'all'),
    copyBusyNs: num(overlap, 'copyBusyNs'),
    computeNs: num(classes, 'computeNs'),
    communicationNs: num(classes, 'communicationNs'),
    memoryKernelNs: num(classes, 'memoryNs'),
    commComputeOverlap: optNum(overlap, 'commCompute') ?? null,
    exposedCommunicationNs: num(overlap, 'exposedCommunicationNs'),
    launchQueueFullNs: num(metrics, 'launchQueueFullNs'),
    steps: {
      pattern: str(steps, 'pattern'),
      count: num(steps, 'count'),
      meanStepNs: num(steps, 'meanStepNs'),
      medianStepNs: num(steps, 'medianStepNs'),
      maxStepNs: num(steps, 'maxStepNs'),
      slowest: objects(arr(steps, 'slowest')).map(parseStep),
      skewedSteps: arr(steps, 'skewedSteps').filter((n): n is string => typeof n === 'string'),
    },
    streams: objects(arr(metrics, 'streams')).map((t) => ({
      track: num(t, 'track'),
      label: str(t, 'label'),
      busyNs: num(t, 'busyNs'),
      utilization: num(t, 'utilization'),
    })),
    gapCount: num(streamGaps, 'count'),
    gapTotalNs: num(streamGaps, 'totalNs'),
    gpuGapCount: num(deviceGaps, 'count'),
    gpuGapTotalNs: num(deviceGaps, 'totalNs'),
    gapNsByCause: Object.entries(nsByCause)
      .filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0)
      .map(([cause, ns]) => ({ cause, ns }))
      .sort((a, b) => b.ns - a.ns),
    gaps: objects(arr(streamGaps, 'listed')).map((g) => ({
      track: num(g, 'track', -1),
      fromNs: num(g, 'fromNs'),
      toNs: num(g, 'toNs'),
      cause: str(g, 'cause', 'unknown'),
      detail: str(g, 'detail'),
      causeOp: num(g, 'causeOp', -1),
    })),
    findings,
  };
}
