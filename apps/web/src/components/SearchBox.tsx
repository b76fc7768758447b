import { useEffect, useState } from 'react';
import { runSearch, stepSearch } from '../data/view-actions.ts';
import { formatCount } from '../lib/format.ts';
import { useApp } from '../store/use-app.ts';

/** Search by op name over the whole trace (not just the visible window), with next/previous. */
export function SearchBox() {
  const query = useApp((s) => s.searchQuery);
  const count = useApp((s) => s.searchMatchCount);
  const index = useApp((s) => s.searchMatchIndex);
  const [text, setText] = useState(query);
  useEffect(() => setText(query), [query]);
  return (
    <form
      className="search row"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        if (text === query && count > 0) {
          stepSearch(1);
        } else {
          runSearch(text);
        }
      }}
    >
      <input
        type="search"
        placeholder="Search op names"
        aria-label="Search op names"
        data-testid="search-input"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          // Keep WASD and other view keys for the canvas from firing while typing.
          e.stopPropagation();
          if (e.key === 'Enter' && e.shiftKey) {
            e.preventDefault();
            stepSearch(-1);
          }
        }}
      />
      <button
        type="button"
        aria-label="Previous match"
        data-testid="search-prev"
        disabled={count === 0}
        onClick={() => stepSearch(-1)}
      >
        ◀
      </button>
      <button
        type="button"
        aria-label="Next match"
        data-testid="search-next"
        disabled={count === 0}
        onClick={() => stepSearch(1)}
      >
        ▶
      </button>
      <span className="muted small" data-testid="search-count">
        {query === ''
          ? ''
          : count === 0
            ? 'no matches'
            : `${formatCount(index + 1)} / ${formatCount(count)}`}
      </span>
    </form>
  );
}
