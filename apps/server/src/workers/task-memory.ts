import { importPeakBytesPerOp } from '@streamscope/importers';
import { usableMemoryBytes } from '../config.ts';
import type { TraceFileRef } from './protocol.ts';

// What a task that decodes a whole stored trace may reach, per op of the trace, as measured on
// the 175.9M ops (and 6.9M ranges) of a 50M-GPU-op nsys export (#22): the pool lets such tasks
// run side by side only while their sum fits its memory budget.

/** The trace decoded: 8.89 GB of RSS for 175.9M ops, 51 bytes an op. */
export const decodedTraceBytesPerOp = 51;
/** An analysis: the decoded trace, its context, gaps and rules: 22.85 GB at 175.9M ops. */
export const analysisBytesPerOp = 130;
/** Tiles built from a stored trace: the decoded trace and the pyramid's orders, as an import's. */
export const tileBuildBytesPerOp = importPeakBytesPerOp;

/** Share of the machine's memory the tasks that say what they need may hold at once. */
export const taskMemoryShare = 0.8;

export function defaultTaskMemoryBudgetBytes(): number {
  return taskMemoryShare * usableMemoryBytes();
}

/** `bytesPerOp` times the trace's ops, or undefined when the count is not known. */
export function memoryFor(trace: TraceFileRef, bytesPerOp: number): number | undefined {
  return trace.opCount === undefined ? undefined : trace.opCount * bytesPerOp;
}
