import { OpKind } from '@streamscope/trace';
import type { EngineBusyNs } from './types.ts';

/** GPU engine classes an op keeps busy. Indices into per-engine arrays. */
export const Engine = {
  Compute: 0,
  CopyHtoD: 1,
  CopyDtoH: 2,
  CopyDtoD: 3,
  CopyPtoP: 4,
  Memset: 5,
} as const;
export type Engine = (typeof Engine)[keyof typeof Engine];

export const engineCount = 6;
/** `engineOf` value of ops that keep no GPU engine busy (markers, host ops, host-to-host copies). */
export const noEngine = 255;

export const engineKeys = [
  'compute',
  'copyHtoD',
  'copyDtoH',
  'copyDtoD',
  'copyPtoP',
  'memset',
] as const satisfies readonly (keyof EngineBusyNs)[];

const engineByKind = new Uint8Array(32).fill(noEngine);
engineByKind[OpKind.Kernel] = Engine.Compute;
// A graph traced as one item (nsys --cuda-graph-trace=graph) is compute work as far as we can tell.
engineByKind[OpKind.GraphLaunch] = Engine.Compute;
engineByKind[OpKind.CopyHtoD] = Engine.CopyHtoD;
engineByKind[OpKind.CopyDtoH] = Engine.CopyDtoH;
engineByKind[OpKind.CopyDtoD] = Engine.CopyDtoD;
engineByKind[OpKind.CopyPtoP] = Engine.CopyPtoP;
engineByKind[OpKind.Memset] = Engine.Memset;

/** The engine a GPU op of `kind` keeps busy, or `noEngine`. */
export function engineOfKind(kind: number): number {
  return engineByKind[kind] ?? noEngine;
}

export function isCopyEngine(engine: number): boolean {
  return engine >= Engine.CopyHtoD && engine <= Engine.CopyPtoP;
}

/** Ops that occupy a stream (work, plus host functions that hold the stream). */
export function occupiesStream(kind: number): boolean {
  return engineOfKind(kind) !== noEngine || kind === OpKind.HostFunc;
}
