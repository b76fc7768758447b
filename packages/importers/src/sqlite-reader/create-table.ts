/** A table's columns as its CREATE TABLE statement declares them. */
export interface TableShape {
  readonly columns: readonly string[];
  /** Index of the INTEGER PRIMARY KEY column (an alias of the rowid, stored as NULL), or -1. */
  readonly rowidColumn: number;
  readonly withoutRowid: boolean;
}

const constraintWords = new Set(['constraint', 'primary', 'unique', 'check', 'foreign']);

/**
 * Reads the column names from a `CREATE TABLE name (…)` statement: comments stripped, quoted
 * names unquoted, table constraints skipped. Returns undefined when the text is not a column list
 * (e.g. `CREATE TABLE … AS SELECT`).
 */
export function parseCreateTable(sql: string): TableShape | undefined {
  const text = stripComments(sql);
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) {
    return undefined;
  }
  const withoutRowid = /\bwithout\s+rowid\b/i.test(text.slice(close));
  const columns: string[] = [];
  let rowidColumn = -1;
  let tablePrimaryKey: string[] | undefined;
  const types: string[] = [];
  for (const part of splitTopLevel(text.slice(open + 1, close))) {
    const [name, rest] = leadingName(part);
    if (name === '') {
      continue;
    }
    if (!isQuoted(part) && constraintWords.has(name.toLowerCase())) {
      const pk = /^\s*(?:constraint\s+\S+\s+)?primary\s+key\s*\(([^)]*)\)/i.exec(part);
      if (pk !== null) {
        tablePrimaryKey = pk[1]!.split(',').map((c) => unquote(c.trim().split(/\s+/)[0] ?? ''));
      }
      continue;
    }
    const type = /^\s*([a-z_ ]*)/i.exec(rest)?.[1]?.trim().split(/\s+/)[0] ?? '';
    types.push(type);
    if (/\bprimary\s+key\b/i.test(rest) && !/\bprimary\s+key\s+desc\b/i.test(rest)) {
      if (type.toUpperCase() === 'INTEGER') {
        rowidColumn = columns.length;
      }
    }
    columns.push(name);
  }
  if (tablePrimaryKey?.length === 1) {
    const at = columns.indexOf(tablePrimaryKey[0]!);
    if (at >= 0 && types[at]!.toUpperCase() === 'INTEGER') {
      rowidColumn = at;
    }
  }
  return { columns, rowidColumn: withoutRowid ? -1 : rowidColumn, withoutRowid };
}

function stripComments(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end - 1;
      out += ' ';
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 1;
      out += ' ';
    } else if (c === "'" || c === '"' || c === '`' || c === '[') {
      const closer = c === '[' ? ']' : c;
      let end = sql.indexOf(closer, i + 1);
      end = end < 0 ? sql.length - 1 : end;
      out += sql.slice(i, end + 1);
      i = end;
    } else {
      out += c;
    }
  }
  return out;
}

/** Splits on commas outside parentheses and quotes. */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const end = body.indexOf(c === '[' ? ']' : c, i + 1);
      i = end < 0 ? body.length : end;
    } else if (c === '(') {
      depth++;
    } else if (c === ')') {
      depth--;
    } else if (c === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function isQuoted(part: string): boolean {
  return /^\s*["`[']/.test(part);
}

function leadingName(part: string): [string, string] {
  const m = /^\s*("(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|'[^']*'|[^\s(]+)(.*)$/s.exec(part);
  return m === null ? ['', ''] : [unquote(m[1]!), m[2]!];
}

function unquote(name: string): string {
  const first = name[0];
  if (first === '"' || first === '`' || first === "'") {
    return name.slice(1, -1).replaceAll(first + first, first);
  }
  if (first === '[') {
    return name.slice(1, -1);
  }
  return name;
}
