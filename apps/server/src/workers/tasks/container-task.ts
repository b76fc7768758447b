import { closeSync, openSync } from 'node:fs';
import { CodecError, TraceDecoder } from '@streamscope/trace';
import { ImportLimitError } from '@streamscope/importers';
import { ApiError } from '../../http/api-error.ts';
import { importLimitReached } from '../../imports/import-failures.ts';
import { importedTraceOf } from '../../imports/imported-trace.ts';
import { forEachBatchRun } from '../batch-file.ts';
import { pyramidAtImport } from '../tile-pyramid.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/**
 * An uploaded streamscope container (.sstrace), checked by decoding it whole, batch by batch as
 * it is read, and encoded again as it will be stored: nothing of the upload is kept beyond what
 * the codec understood. A corrupt or truncated file is a 422 naming the file and the byte; one
 * whose ops and ranges pass `maxOps` is refused (413) as an import would be, once they do.
 */
export async function containerTask(
  filePath: string,
  fileName: string,
  maxOps: number,
  outBase: string,
  ctx: TaskContext,
): Promise<TaskResult> {
  const fd = openSync(filePath, 'r');
  try {
    const decoder = new TraceDecoder();
    let ended = false;
    await forEachBatchRun(
      fd,
      (batches, fileOffset) => {
        if (ended) {
          throw new CodecError(`data follows the end batch at byte ${fileOffset}`, fileOffset);
        }
        ended = decoder.apply(batches, fileOffset).end !== undefined;
        const kept = decoder.trace.ops.count + decoder.trace.ranges.count;
        if (kept > maxOps) {
          throw importLimitReached(
            new ImportLimitError(
              { file: fileName },
              `the trace has more than ${maxOps} ops and ranges together, the limit an import keeps (reached at byte ${fileOffset} of the file)`,
              maxOps,
              'ops',
            ),
          );
        }
      },
      ctx.signal,
    );
    if (!ended) {
      throw new CodecError('no end batch: the file is truncated', 0);
    }
    const trace = decoder.trace;
    ctx.notePeakMemory();
    const result = {
      ...importedTraceOf(trace, trace.meta.warnings ?? [], outBase, ctx.signal),
      ...pyramidAtImport(trace, outBase, ctx.signal),
    };
    return { result };
  } catch (error) {
    if (error instanceof CodecError) {
      throw new ApiError(422, 'invalid-trace', `${fileName}: ${error.message}`);
    }
    throw error;
  } finally {
    closeSync(fd);
  }
}
