/** The discrete-event simulator of a GPU and its host threads, and its device profiles. */
export type {
  DeviceProfile,
  ProfileDevice,
  CopyBandwidths,
  ApiCosts,
  CopyEngineRole,
} from './profile.ts';
export type { ProfileName } from './profiles.ts';
export { deviceProfiles, findProfile } from './profiles.ts';
export type { Calibration } from './calibration.ts';
export { profileFromCalibration, CalibrationError } from './calibration.ts';
export type { Simulation } from './simulation.ts';
export { createSimulation, simulate, SimulationError, simulatorVersion } from './simulation.ts';
