import { ApiError, mergeImports } from './client.ts';
import type { ImportProgress } from './import-progress.ts';
import { uploadingProgress } from './import-progress.ts';
import type { TraceEntry } from './types.ts';
import type { UploadHandle } from './upload.ts';
import { uploadTrace } from './upload.ts';

/** Where a several-file import stands: each file's own progress, then the merge. */
export interface RanksProgress {
  readonly files: readonly { readonly fileName: string; readonly progress: ImportProgress }[];
  readonly merging: boolean;
}

export interface RanksImport {
  readonly done: Promise<TraceEntry>;
  abort: () => void;
}

/**
 * Several ranks' files of one job: each is uploaded and imported as usual (one after another,
 * so the server parses one at a time), then POST /api/imports/merge turns them into one trace.
 * A failure names its file; abort stops the file in flight and merges nothing.
 */
export function importRanks(
  files: readonly File[],
  onProgress: (progress: RanksProgress) => void,
): RanksImport {
  let current: UploadHandle | undefined;
  let aborted = false;
  const progress = files.map((file) => ({
    fileName: file.name,
    progress: uploadingProgress(0, file.size),
  }));
  const report = (merging: boolean): void => onProgress({ files: [...progress], merging });
  const run = async (): Promise<TraceEntry> => {
    const ids: string[] = [];
    report(false);
    for (const [i, file] of files.entries()) {
      if (aborted) {
        throw abortError();
      }
      current = uploadTrace(file, file.name, (p) => {
        progress[i] = { fileName: file.name, progress: p };
        report(false);
      });
      const entry = await current.done.catch((error: unknown) => {
        // Name the file: the page shows one message for all of them.
        throw error instanceof ApiError && !error.message.startsWith(file.name)
          ? new ApiError(`${file.name}: ${error.message}`, error.status, error.code, error.path)
          : error;
      });
      ids.push(entry.id);
    }
    report(true);
    return mergeImports(ids);
  };
  return {
    done: run(),
    abort: () => {
      aborted = true;
      current?.abort();
    },
  };
}

function abortError(): ApiError {
  return new ApiError('the import was cancelled', 0, 'aborted');
}
