/**
 * Offset of the first JSON syntax error in `text`, or -1 when it is valid. Engines word their
 * JSON.parse errors differently (and some give no position), so the editor finds it itself.
 */
export function jsonSyntaxErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxAt(i);
  };
  const space = (): void => {
    while (
      i < text.length &&
      (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')
    ) {
      i++;
    }
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) {
      i += word.length;
    } else {
      fail();
    }
  };
  const string = (): void => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i++;
        const e = text[i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) {
            fail();
          }
          i += 5;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) {
          fail();
        }
        i++;
        continue;
      }
      if (c < ' ') {
        fail();
      }
      i++;
    }
    fail();
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (match === null) {
      fail();
    } else {
      i += match[0].length;
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') {
          fail();
        }
        string();
        space();
        if (text[i] !== ':') {
          fail();
        }
        i++;
        value();
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '[') {
      i++;
      space();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '"') {
      string();
    } else if (c === 't') {
      literal('true');
    } else if (c === 'f') {
      literal('false');
    } else if (c === 'n') {
      literal('null');
    } else {
      number();
    }
  };
  try {
    value();
    space();
    return i < text.length ? i : -1;
  } catch (e) {
    if (e instanceof SyntaxAt) {
      return e.offset;
    }
    throw e;
  }
}

class SyntaxAt extends Error {
  constructor(readonly offset: number) {
    super(`JSON syntax error at ${offset}`);
  }
}
