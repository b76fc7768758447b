// Messages between the parent and the executor child process (child-host.mjs). The child loads
// the addon; the parent never does. Binary record batches travel as Uint8Array with the
// 'advanced' serialization, never as JSON.
import type { NativePlan, NativeRunOptions } from './native-plan.ts';

export interface ProbeDevice {
  readonly deviceId: number;
  readonly name: string;
  readonly smCount?: number;
  readonly copyEngineCount?: number;
  readonly memoryBytes?: number;
  readonly computeCapability?: string;
  readonly pciBusId?: string;
  readonly clockRateKHz?: number;
  readonly priorityRange?: readonly [number, number];
  readonly concurrentKernels?: boolean;
}

/** What `streamscope probe` prints: the addon, CUDA and CUPTI, or exactly why not. */
export interface ProbeReport {
  readonly addon: { readonly loaded: boolean; readonly path: string; readonly reason?: string };
  readonly cuda?: {
    readonly ok: boolean;
    readonly runtimeVersion: number;
    readonly driverVersion: number;
    readonly errorName?: string;
    readonly error?: string;
    readonly devices: readonly ProbeDevice[];
  };
  readonly cupti?: {
    readonly ok: boolean;
    readonly version?: number;
    readonly library?: string;
    readonly error?: string;
  };
}

export interface NativeStatus {
  readonly state: 'idle' | 'running' | 'finished' | 'cancelled' | 'failed';
  readonly error?: string;
  readonly opsOut?: number;
  readonly dropped?: number;
  readonly unmatched?: number;
  readonly cuptiDropped?: number;
  /** GPU records of setup work before the run's window (not part of the run, not lost). */
  readonly beforeOrigin?: number;
  /** CUDA event records CUPTI delivered, and what optional CUPTI features did. */
  readonly eventRecords?: number;
  /** Stream waits whose GPU times never arrived, so no wait op was drawn for them. */
  readonly unresolvedWaits?: number;
  /** Names past the native sink's bound, shown as a stand-in name. */
  readonly namesDropped?: number;
  readonly cuptiNotes?: string;
  readonly makespanNs?: number;
  readonly timingMethod?: string;
}

export type ToChild =
  | { readonly type: 'run'; readonly plan: NativePlan; readonly options: NativeRunOptions }
  | { readonly type: 'cancel' }
  | {
      readonly type: 'copy-bandwidth';
      readonly direction: 'htod' | 'dtoh';
      readonly pinned: boolean;
      readonly bytes: number;
      readonly reps: number;
      readonly device: number;
    };

export type FromChild =
  | { readonly type: 'ready'; readonly probe: ProbeReport }
  | {
      readonly type: 'started';
      readonly originNs: string;
      readonly timingMethod: 'cupti' | 'events' | 'none';
      readonly timingNote: string;
    }
  | { readonly type: 'records'; readonly bytes: Uint8Array }
  | { readonly type: 'ended'; readonly status: NativeStatus }
  | { readonly type: 'bandwidth'; readonly bytesPerS: number }
  | { readonly type: 'error'; readonly message: string };

/** Why no GPU run is possible, from a probe; undefined when one is. */
export function unavailableReason(probe: ProbeReport): string | undefined {
  if (!probe.addon.loaded) {
    return probe.addon.reason ?? 'native addon not loaded';
  }
  if (probe.cuda === undefined) {
    return 'the addon did not report CUDA';
  }
  if (!probe.cuda.ok) {
    return `no usable CUDA device: ${probe.cuda.error ?? probe.cuda.errorName ?? 'unknown'}`;
  }
  return undefined;
}
