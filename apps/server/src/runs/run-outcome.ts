import type { RunEnd } from '@streamscope/executor';
import type { RunSummaryInfo, ServerMessage } from '../live/protocol.ts';

/** The live channel's last message for a run that ended this way. */
export function finalMessage(
  runId: string,
  end: RunEnd,
  frameCount: number,
  summary: RunSummaryInfo,
): ServerMessage {
  switch (end.status) {
    case 'finished':
      return { type: 'finished', runId, frameCount, summary };
    case 'cancelled':
      return { type: 'cancelled', runId, frameCount };
    case 'failed':
      return { type: 'failed', runId, frameCount, reason: end.reason };
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
