import type { NameQuery } from '../../workers/name-match.ts';
import { ApiError } from '../api-error.ts';
import type { AppServices } from '../services.ts';

/**
 * The ids of a tiles file's names that a search matches, found in a worker (a user's regular
 * expression never runs on the event loop); one that runs past `limits.searchMs` is a 422
 * `search-too-slow` naming `q`, and its worker is ended.
 */
export async function matchingNameIds(
  services: AppServices,
  tilesPath: string,
  query: NameQuery,
): Promise<number[]> {
  const matchNames = services.tools.matchNames;
  if (matchNames === undefined) {
    throw new ApiError(501, 'not-available', 'search is not available in this build');
  }
  const limitMs = services.limits.searchMs;
  try {
    return Array.from(await matchNames(tilesPath, query, limitMs));
  } catch (error) {
    if ((error as { name?: unknown }).name === 'TimeoutError') {
      throw new ApiError(
        422,
        'search-too-slow',
        `the search ran past its ${limitMs} ms over the trace's names and was stopped; use a simpler pattern`,
        'q',
      );
    }
    throw error;
  }
}
