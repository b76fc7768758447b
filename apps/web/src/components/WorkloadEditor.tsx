import { useRef } from 'react';
import type { PlacedError } from '../lib/workload-errors.ts';

interface WorkloadEditorProps {
  readonly text: string;
  readonly errors: readonly PlacedError[];
  readonly onChange: (text: string) => void;
}

/**
 * A JSON text editor with a line gutter: lines with a validation error are marked there and
 * the error list under it jumps to the place when clicked.
 */
export function WorkloadEditor({ text, errors, onChange }: WorkloadEditorProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const lineCount = text.split('\n').length;
  const errorsByLine = new Map<number, string[]>();
  for (const e of errors) {
    const list = errorsByLine.get(e.place.line) ?? [];
    list.push(e.message);
    errorsByLine.set(e.place.line, list);
  }
  const jump = (e: PlacedError): void => {
    const el = area.current;
    if (el === null) {
      return;
    }
    el.focus();
    el.setSelectionRange(e.place.offset, e.place.offset + 1);
  };
  return (
    <div className="stack">
      <div className="editor">
        <div className="gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: lineCount }, (_, i) => {
            const messages = errorsByLine.get(i + 1);
            return (
              <div
                key={i}
                className={messages === undefined ? 'gutter-line' : 'gutter-line has-error'}
                title={messages?.join('\n')}
              >
                {i + 1}
              </div>
            );
          })}
        </div>
        <textarea
          ref={area}
          data-testid="workload-editor"
          spellCheck={false}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          onScroll={(e) => {
            if (gutter.current !== null) {
              gutter.current.scrollTop = e.currentTarget.scrollTop;
            }
          }}
        />
      </div>
      {errors.length > 0 && (
        <ul className="error-list" data-testid="workload-errors">
          {errors.map((e, i) => (
            <li key={i}>
              <button
                type="button"
                className="link"
                data-testid="workload-error"
                onClick={() => jump(e)}
              >
                line {e.place.line}, column {e.place.column}
                {e.path !== '' && <code> {e.path}</code>}: {e.message}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
