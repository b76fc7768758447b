import { ApiError, mergeImports } from './client.ts';
import type { ImportProgress } from './import-progress.ts';
import { uploadingProgress } from './import-progress.ts';
import type { UploadedEntry, UploadHandle } from './upload.ts';
import { uploadTrace } from './upload.ts';

/** Where a several-file import stands: each file's own progress, then the merge. */
export interface RanksProgress {
  readonly files: readonly { readonly fileName: string; readonly progress: ImportProgress }[];
  readonly merging: boolean;
}

export interface RanksImport {
  /** The merged trace, or (`alreadyImported`) the earlier merge of the same files. */
  readonly done: Promise<UploadedEntry>;
  abort: () => void;
}

/**
 * Several ranks' files of one job: each is uploaded and imported as usual (one after another,
 * so the server parses one at a time), then POST /api/imports/merge turns them into one trace.
 * A file whose bytes the server has already is not imported again (ifDuplicate 'offer': its
 * earlier import is merged), and the server answers a merge of files it merged before with that
 * earlier trace: dropping the same files again adds nothing to the list. A failure names its
 * file; abort stops the file in flight and merges nothing.
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
  const run = async (): Promise<UploadedEntry> => {
    const ids: string[] = [];
    /** Which file each stored trace came from: two files of the same bytes are one trace. */
    const fileOfId = new Map<string, string>();
    report(false);
    for (const [i, file] of files.entries()) {
      if (aborted) {
        throw abortError();
      }
      current = uploadTrace(
        file,
        file.name,
        (p) => {
          progress[i] = { fileName: file.name, progress: p };
          report(false);
        },
        'offer',
      );
      const entry = await current.done.catch((error: unknown) => {
        // Name the file: the page shows one message for all of them.
        throw error instanceof ApiError && !error.message.startsWith(file.name)
          ? new ApiError(`${file.name}: ${error.message}`, error.status, error.code, error.path)
          : error;
      });
      const sameBytes = fileOfId.get(entry.id);
      if (sameBytes !== undefined) {
        throw new ApiError(
          `${file.name}: holds the same bytes as ${sameBytes}: give each rank's trace once`,
          422,
          'merge-failed',
        );
      }
      fileOfId.set(entry.id, file.name);
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
