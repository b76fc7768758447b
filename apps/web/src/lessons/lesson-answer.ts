import { saveTrace } from '@streamscope/trace';
import { findLesson } from './lesson-catalogue.ts';
import type { LessonRequest, LessonResponse } from './lesson-protocol.ts';
import { runLessonPair } from './run-lesson-pair.ts';

// Simulates and analyses lesson pairs off the main thread. One request at a time; the client
// coalesces requests so a dragged slider never queues stale work here.

/** The worker's answer to one request, with the buffers to transfer. */
export function answerLessonRequest(request: LessonRequest): {
  response: LessonResponse;
  transfer: Transferable[];
} {
  const lesson = findLesson(request.lessonId);
  if (lesson === undefined) {
    return {
      response: {
        type: 'error',
        requestId: request.requestId,
        message: `no lesson ${request.lessonId}`,
      },
      transfer: [],
    };
  }
  try {
    const { beforeTrace, afterTrace, ...summary } = runLessonPair(
      lesson,
      request.params,
      request.profile,
    );
    const beforeBytes = saveTrace(beforeTrace);
    const afterBytes = saveTrace(afterTrace);
    return {
      response: { type: 'pair', requestId: request.requestId, summary, beforeBytes, afterBytes },
      transfer: [beforeBytes.buffer, afterBytes.buffer],
    };
  } catch (error) {
    return {
      response: {
        type: 'error',
        requestId: request.requestId,
        message: error instanceof Error ? error.message : String(error),
      },
      transfer: [],
    };
  }
}
