/** The discrete-event simulator of a GPU and its host threads, and its device profiles. */
export type {
  DeviceProfile,
  ProfileDevice,
  CopyBandwidths,
  ApiCosts,
  CopyEngineRole,
  CrossEngineGaps,
  PageableStaging,
  FirstUseCosts,
  FirstUseCall,
  ProfileProvenance,
} from './profile.ts';
export { firstUseCalls } from './profile.ts';
export type { ProfileName } from './profiles.ts';
export type { LinkProfile, NcclAlgorithm, NcclProtocol, CollectiveCost } from './link-model.ts';
export { linkProfiles, collectiveCost, p2pCost } from './link-model.ts';
export { deviceProfiles, findProfile } from './profiles.ts';
export type { Calibration, CalibrationDevice } from './calibration.ts';
export { baseProfileFor, profileFromCalibration, CalibrationError } from './calibration.ts';
export { applyCalibration, calibratedValues } from './calibration-values.ts';
export type { Simulation } from './simulation.ts';
export { createSimulation, simulate, SimulationError, simulatorVersion } from './simulation.ts';
