// @vitest-environment node
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ImportProgress } from '../api/import-progress.ts';
import { openStoredTrace } from '../data/trace-loader.ts';
import { getAnalysisFor, getTrace } from '../data/trace-registry.ts';
import { appStore } from '../store/index.ts';
import { importLocalFile } from './local-import-job.ts';
import type { LocalImportRequest, LocalImportResponse } from './local-import-protocol.ts';
import { openLocally } from './open-locally.ts';
import { isLocalTraceId } from './local-trace-id.ts';

/** The local import worker's protocol answered in-process by the worker's own job. */
class FakeLocalImportWorker extends EventTarget {
  terminated = false;
  private readonly controller = new AbortController();

  postMessage(request: LocalImportRequest): void {
    if (request.type === 'cancel') {
      this.controller.abort();
      return;
    }
    const post = (data: LocalImportResponse): void => {
      if (!this.terminated) {
        this.dispatchEvent(new MessageEvent('message', { data }));
      }
    };
    setTimeout(() => {
      void importLocalFile(request.file, request.fileName, {
        signal: this.controller.signal,
        onProgress: (readBytes, totalBytes) => post({ type: 'progress', readBytes, totalBytes }),
      }).then(post);
    }, 0);
  }

  terminate(): void {
    this.terminated = true;
  }
}

function fixtureFile(name: string): File {
  const bytes = readFileSync(
    fileURLToPath(new URL(`../../../../fixtures/${name}`, import.meta.url)),
  );
  return new File([bytes], name.split('/').pop()!);
}

function open(name: string) {
  const worker = new FakeLocalImportWorker();
  const seen: ImportProgress[] = [];
  const handle = openLocally(
    fixtureFile(name),
    (p) => seen.push(p),
    () => worker as unknown as Worker,
  );
  return { worker, seen, handle };
}

describe('openLocally', () => {
  it('registers the worker trace and its analysis under a local id, then ends the worker', async () => {
    const { worker, seen, handle } = open('nsys/2025.3.1/train.json');
    const outcome = await handle.done;
    expect(outcome.kind).toBe('opened');
    if (outcome.kind !== 'opened') {
      return;
    }
    expect(isLocalTraceId(outcome.traceId)).toBe(true);
    expect(getTrace(outcome.traceId)?.ops.count).toBe(outcome.opCount);
    expect(getAnalysisFor(outcome.traceId)?.gpuOpCount).toBeGreaterThan(0);
    expect(seen.at(-1)).toMatchObject({ stage: 'parsing', fraction: 1 });
    expect(worker.terminated).toBe(true);
  });

  it('resolves as cancelled when cancelled before the worker read anything', async () => {
    const { worker, handle } = open('nsys/2025.3.1/train.json');
    handle.cancel();
    expect(await handle.done).toEqual({ kind: 'cancelled' });
    expect(worker.terminated).toBe(true);
  });

  it("passes on the importer's error for a file it cannot read", async () => {
    const outcome = await open('broken/wrong-format.json').handle.done;
    expect(outcome).toMatchObject({ kind: 'failed' });
    expect(outcome.kind === 'failed' ? outcome.message : '').toContain('wrong-format.json');
  });

  it('opens a local trace from the registry and never asks the server for one it lost', async () => {
    await openStoredTrace('local:999');
    expect(appStore.getState()).toMatchObject({ traceId: 'local:999', traceStatus: 'error' });
    expect(appStore.getState().traceError).toContain('open its file again');

    const outcome = await open('kineto/train.pt.trace.json.gz').handle.done;
    const traceId = outcome.kind === 'opened' ? outcome.traceId : '';
    await openStoredTrace(traceId);
    expect(appStore.getState()).toMatchObject({ traceId, traceStatus: 'ready' });
  });
});
