import { answerLessonRequest } from './lesson-answer.ts';
import type { LessonRequest } from './lesson-protocol.ts';

// The lesson worker's entry: one request at a time, answered in order.
self.addEventListener('message', (event: MessageEvent<LessonRequest>) => {
  const { response, transfer } = answerLessonRequest(event.data);
  self.postMessage(response, { transfer });
});
