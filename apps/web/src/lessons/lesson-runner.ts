import type { Trace } from '@streamscope/trace';
import { loadTrace } from '@streamscope/trace';
import { beginActivity } from '../test-mode/activity.ts';
import type { LessonRequest, LessonResponse } from './lesson-protocol.ts';
import type { LessonParams } from './lesson-types.ts';
import type { LessonPairSummary } from './run-lesson-pair.ts';

export interface LessonRunResult {
  readonly summary: LessonPairSummary;
  readonly beforeTrace: Trace;
  readonly afterTrace: Trace;
}

export interface LessonJob {
  readonly lessonId: string;
  readonly params: LessonParams;
  readonly profile: string;
}

/** Where a lesson pair gets computed: a worker in the browser, inline in tests. */
export interface LessonRunner {
  /**
   * Runs a job. A job submitted while another runs replaces any job still waiting, and the
   * replaced job's promise resolves to undefined: only the latest settings are worth computing.
   */
  run(job: LessonJob): Promise<LessonRunResult | undefined>;
  dispose(): void;
}

/** Posts requests to one `Worker`, one in flight at a time, keeping only the newest waiting job. */
export function createWorkerLessonRunner(worker: Worker): LessonRunner {
  let nextId = 1;
  let inFlight:
    | {
        id: number;
        resolve: (r: LessonRunResult) => void;
        reject: (e: Error) => void;
        end: () => void;
      }
    | undefined;
  let waiting:
    | {
        job: LessonJob;
        resolve: (r: LessonRunResult | undefined) => void;
        reject: (e: Error) => void;
        end: () => void;
      }
    | undefined;

  const start = (): void => {
    if (inFlight !== undefined || waiting === undefined) {
      return;
    }
    const next = waiting;
    waiting = undefined;
    const id = nextId++;
    inFlight = { id, resolve: next.resolve, reject: next.reject, end: next.end };
    const request: LessonRequest = { requestId: id, ...next.job };
    worker.postMessage(request);
  };

  const onMessage = (event: MessageEvent<LessonResponse>): void => {
    const current = inFlight;
    if (current === undefined || event.data.requestId !== current.id) {
      return;
    }
    inFlight = undefined;
    const data = event.data;
    if (data.type === 'pair') {
      current.resolve({
        summary: data.summary,
        beforeTrace: loadTrace(data.beforeBytes),
        afterTrace: loadTrace(data.afterBytes),
      });
    } else {
      current.reject(new Error(data.message));
    }
    current.end();
    start();
  };
  const onError = (event: ErrorEvent): void => {
    const current = inFlight;
    inFlight = undefined;
    if (current !== undefined) {
      current.reject(new Error(`the lesson worker failed: ${event.message}`));
      current.end();
    }
    start();
  };
  worker.addEventListener('message', onMessage);
  worker.addEventListener('error', onError);

  return {
    run(job) {
      if (waiting !== undefined) {
        waiting.resolve(undefined);
        waiting.end();
      }
      const end = beginActivity();
      const promise = new Promise<LessonRunResult | undefined>((resolve, reject) => {
        waiting = { job, resolve, reject, end };
      });
      start();
      return promise;
    },
    dispose() {
      worker.removeEventListener('message', onMessage);
      worker.removeEventListener('error', onError);
      worker.terminate();
      inFlight?.end();
      waiting?.end();
      inFlight = undefined;
      waiting = undefined;
    },
  };
}

/** The browser's runner: a module worker bundled by Vite. */
export function createBrowserLessonRunner(): LessonRunner {
  const worker = new Worker(new URL('./lesson-worker.ts', import.meta.url), { type: 'module' });
  return createWorkerLessonRunner(worker);
}
