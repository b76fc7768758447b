import type { ChromeEvent } from './chrome-event.ts';

/**
 * The name kineto gives a CUDA API call whose callback id its own table of names lacks (a CUDA
 * newer than the profiler: CUDA 13's runtime callback 461 under PyTorch 2.11, for one).
 */
export const unnamedByProfiler = 'INVALID';

/**
 * A name for an API call that kineto named `unnamedByProfiler`: what it is, by its category, and
 * the CUPTI callback id that kineto writes in its `args.cbid`, e.g. "CUDA runtime call (cbid 461)".
 * Reading the id parses the event's args: only these calls pay for it.
 */
export function unnamedCallName(e: ChromeEvent): string {
  const what =
    e.cat === 'cuda_driver' || e.cat === 'Driver' ? 'CUDA driver call' : 'CUDA runtime call';
  const cbid = e.otherArg('cbid');
  if (
    (typeof cbid === 'number' && Number.isSafeInteger(cbid) && cbid >= 0) ||
    (typeof cbid === 'string' && /^\d{1,15}$/.test(cbid))
  ) {
    return `${what} (cbid ${cbid})`;
  }
  return `${what} (the profiler gave no name or callback id)`;
}
