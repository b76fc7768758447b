/** The workload spec, its validation into a Plan, and the lesson presets. */
export type { Workload, WorkloadInput, WorkloadOp, WorkloadOpInput } from './schema.ts';
export { workloadSchema, workloadJsonSchema } from './schema.ts';
export type { ValidationResult } from './validate.ts';
export { validateWorkload } from './validate.ts';
export type { WorkloadIssue } from './issues.ts';
export type { WorkloadLimits } from './limits.ts';
export { defaultLimits } from './limits.ts';
export type {
  Plan,
  PlanOp,
  PlanOpKind,
  PlanDevice,
  PlanBuffer,
  PlanStream,
  PlanEvent,
  PlanThread,
  PlanGraph,
  PlanCopy,
  PlanKernel,
  PlanMemset,
  PlanEventRecord,
  PlanStreamWait,
  PlanEventSync,
  PlanStreamSync,
  PlanDeviceSync,
  PlanHostFunc,
  PlanHostWork,
  PlanMalloc,
  PlanFree,
  PlanGraphCapture,
  PlanGraphLaunch,
  PlanRangePush,
  PlanRangePop,
  PlanGroup,
  PlanCollective,
  PlanCollectiveMember,
  PlanP2p,
  PlanDtype,
  PlanReduceOp,
  CollectiveKind,
  BufferKind,
  PlanStreamType,
  CopyDirection,
} from './plan.ts';
export { dtypeBytes } from './plan.ts';
export type {
  PresetInfo,
  PresetParam,
  PresetParamType,
  PresetValue,
} from './presets/preset-types.ts';
export {
  presets,
  buildPreset,
  presetDescription,
  presetRunTitle,
  PresetError,
} from './presets/registry.ts';
export { blogKernelIterations } from './presets/overlap-blog.ts';
export { parseSize, parseDuration, UnitError, sizeUnits, timeUnits } from './units.ts';
export { chunkRingWorkload } from './chunk-ring-workload.ts';
