import { useEffect, useState } from 'react';
import { runSearch, stepSearch } from '../data/view-actions.ts';
import { searchCountLabel } from '../lib/search.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';
import { beginActivity } from '../test-mode/activity.ts';

/** How long typing must pause before the search runs again. */
const searchDebounceMs = 150;

/** Whether the store already holds the result of this query (so typing has nothing to do). */
function isCurrent(text: string, regex: boolean): boolean {
  const state = appStore.getState();
  return state.searchQuery === text && state.searchRegex === regex;
}

/**
 * Search by op name over the whole trace (not just the visible window) as you type, as a plain
 * substring or a regular expression, with next/previous and "k of N". Enter goes to the next
 * match (the first after typing), Shift+Enter to the previous one.
 */
export function SearchBox() {
  const query = useApp((s) => s.searchQuery);
  const storedRegex = useApp((s) => s.searchRegex);
  const count = useApp((s) => s.searchMatchCount);
  const index = useApp((s) => s.searchMatchIndex);
  const error = useApp((s) => s.searchError);
  const [text, setText] = useState(query);
  const [regex, setRegex] = useState(storedRegex);
  useEffect(() => setText(query), [query]);
  useEffect(() => setRegex(storedRegex), [storedRegex]);
  useEffect(() => {
    if (isCurrent(text, regex)) {
      return;
    }
    // The pause counts as work in flight, so a test waits for the search it typed.
    const end = beginActivity();
    const timer = setTimeout(() => {
      end();
      if (!isCurrent(text, regex)) {
        runSearch(text, regex, false);
      }
    }, searchDebounceMs);
    return () => {
      clearTimeout(timer);
      end();
    };
  }, [text, regex]);
  const step = (delta: 1 | -1): void => {
    if (!isCurrent(text, regex)) {
      runSearch(text, regex, false);
    }
    stepSearch(delta);
  };
  return (
    <form
      className="search row"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        step(1);
      }}
    >
      <input
        type="search"
        placeholder={regex ? 'Search op names (regex)' : 'Search op names'}
        aria-label="Search op names"
        aria-invalid={error !== null}
        data-testid="search-input"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          // Keep WASD and other view keys for the canvas from firing while typing.
          e.stopPropagation();
          if (e.key === 'Enter' && e.shiftKey) {
            e.preventDefault();
            step(-1);
          }
        }}
      />
      <button
        type="button"
        className={regex ? 'toggle on' : 'toggle'}
        aria-pressed={regex}
        aria-label="Regular expression"
        title="Match names with a regular expression"
        data-testid="search-regex"
        onClick={() => setRegex(!regex)}
      >
        .*
      </button>
      <button
        type="button"
        aria-label="Previous match"
        data-testid="search-prev"
        disabled={count === 0}
        onClick={() => step(-1)}
      >
        ◀
      </button>
      <button
        type="button"
        aria-label="Next match"
        data-testid="search-next"
        disabled={count === 0}
        onClick={() => step(1)}
      >
        ▶
      </button>
      {error !== null ? (
        <span className="small error" role="alert" data-testid="search-error">
          {error}
        </span>
      ) : (
        <span className="muted small" data-testid="search-count">
          {query === '' ? '' : searchCountLabel(index, count)}
        </span>
      )}
    </form>
  );
}
