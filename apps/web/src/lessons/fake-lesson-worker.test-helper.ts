import { answerLessonRequest } from './lesson-answer.ts';
import type { LessonRequest } from './lesson-protocol.ts';

/**
 * A stand-in for the lesson Worker in jsdom tests: answers each request with the real worker's
 * code, on a later task, one at a time, and counts the requests it was sent.
 */
export class FakeLessonWorker extends EventTarget {
  readonly requests: LessonRequest[] = [];
  terminated = false;

  postMessage(request: LessonRequest): void {
    this.requests.push(request);
    setTimeout(() => {
      if (this.terminated) {
        return;
      }
      const { response } = answerLessonRequest(request);
      this.dispatchEvent(new MessageEvent('message', { data: response }));
    }, 0);
  }

  terminate(): void {
    this.terminated = true;
  }

  asWorker(): Worker {
    // The runner uses only addEventListener, removeEventListener, postMessage and terminate.
    return this as unknown as Worker;
  }
}
