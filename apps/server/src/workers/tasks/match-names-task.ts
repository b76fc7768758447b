import { TileFile } from '../../storage/tile-file.ts';
import type { NameQuery } from '../name-match.ts';
import { nameTest } from '../name-match.ts';
import type { TaskResult } from './task-context.ts';

/**
 * The ids of a tiled trace's names that a search matches, read from its `.tiles` file. Off the
 * event loop: a regular expression is the user's, and one that backtracks badly would hold the
 * loop; here the pool ends the worker when the search's time is up.
 */
export async function matchNamesTask(tilesPath: string, query: NameQuery): Promise<TaskResult> {
  const file = await TileFile.open(tilesPath);
  try {
    const ids = Uint32Array.from(file.matchingNames(nameTest(query)));
    return { result: ids, transfer: [ids.buffer] };
  } finally {
    file.close();
  }
}
