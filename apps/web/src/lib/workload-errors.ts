import type { ValidationError } from '../api/types.ts';
import type { TextPlace } from './json-locate.ts';
import { locateJsonPath } from './json-locate.ts';
import { jsonSyntaxErrorOffset } from './json-syntax.ts';

export interface PlacedError {
  readonly path: string;
  readonly message: string;
  readonly place: TextPlace;
}

/** Parses the editor text; a syntax error becomes a placed error at the offending character. */
export function parseEditorJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: PlacedError } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const found = jsonSyntaxErrorOffset(text);
    const offset = found < 0 ? text.length : found;
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    return {
      ok: false,
      error: { path: '', message: `JSON syntax: ${message}`, place: { offset, line, column } },
    };
  }
}

/** Puts each validation error at the place in the text its path names. */
export function placeErrors(text: string, errors: readonly ValidationError[]): PlacedError[] {
  return errors
    .map((e) => ({ ...e, place: locateJsonPath(text, e.path) }))
    .sort((a, b) => a.place.offset - b.place.offset);
}
