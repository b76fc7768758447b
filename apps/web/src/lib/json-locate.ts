/** A place in the editor's text, 1-based like editors show it. */
export interface TextPlace {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/**
 * Finds where the value at a JSON Pointer-like path ("/streams/1/ops/0/bytes", or dotted
 * "streams[1].ops[0].bytes") starts in `text`. Returns the deepest place it could reach, so an
 * error about a missing property still points at its object. Tolerates text that is not valid
 * JSON past the place it is looking for.
 */
export function locateJsonPath(text: string, path: string): TextPlace {
  const segments = splitPath(path);
  let at = skipSpace(text, 0);
  let reached = at;
  for (const segment of segments) {
    const ch = text[at];
    if (ch === '{') {
      const found = findMember(text, at, segment);
      if (found < 0) {
        break;
      }
      at = found;
    } else if (ch === '[') {
      const index = Number(segment);
      if (!Number.isInteger(index) || index < 0) {
        break;
      }
      const found = findElement(text, at, index);
      if (found < 0) {
        break;
      }
      at = found;
    } else {
      break;
    }
    reached = at;
  }
  return placeOf(text, reached);
}

export function splitPath(path: string): string[] {
  if (path.startsWith('/')) {
    return path
      .slice(1)
      .split('/')
      .filter((s) => s !== '')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '' && s !== '$');
}

function placeOf(text: string, offset: number): TextPlace {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && /\s/.test(text[i]!)) {
    i++;
  }
  return i;
}

/** Index just past the JSON value starting at `at` (strings, containers, literals). */
function skipValue(text: string, at: number): number {
  const ch = text[at];
  if (ch === '"') {
    return skipString(text, at);
  }
  if (ch === '{' || ch === '[') {
    let depth = 0;
    let i = at;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        i = skipString(text, i);
        continue;
      }
      if (c === '{' || c === '[') {
        depth++;
      } else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          return i + 1;
        }
      }
      i++;
    }
    return text.length;
  }
  let i = at;
  while (i < text.length && !/[,}\]\s]/.test(text[i]!)) {
    i++;
  }
  return i;
}

function skipString(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length) {
    if (text[i] === '\\') {
      i += 2;
      continue;
    }
    if (text[i] === '"') {
      return i + 1;
    }
    i++;
  }
  return text.length;
}

/** Offset of the value of member `key` in the object starting at `at`, or -1. */
function findMember(text: string, at: number, key: string): number {
  let i = skipSpace(text, at + 1);
  while (i < text.length && text[i] !== '}') {
    if (text[i] !== '"') {
      return -1;
    }
    const keyEnd = skipString(text, i);
    let name: unknown;
    try {
      name = JSON.parse(text.slice(i, keyEnd)) as unknown;
    } catch {
      return -1;
    }
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') {
      return -1;
    }
    const valueAt = skipSpace(text, i + 1);
    if (name === key) {
      return valueAt;
    }
    i = skipSpace(text, skipValue(text, valueAt));
    if (text[i] === ',') {
      i = skipSpace(text, i + 1);
    }
  }
  return -1;
}

/** Offset of element `index` of the array starting at `at`, or -1. */
function findElement(text: string, at: number, index: number): number {
  let i = skipSpace(text, at + 1);
  let k = 0;
  while (i < text.length && text[i] !== ']') {
    if (k === index) {
      return i;
    }
    i = skipSpace(text, skipValue(text, i));
    if (text[i] === ',') {
      i = skipSpace(text, i + 1);
    }
    k++;
  }
  return -1;
}
