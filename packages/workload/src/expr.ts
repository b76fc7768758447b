import type { Dimension } from './units.ts';
import { sizeUnits, timeUnits } from './units.ts';

/** A value with its dimension: bytes, ns or a plain number. */
export interface Quantity {
  readonly value: number;
  readonly dim: Dimension;
}

/** Thrown by `evaluate`; the message names the problem within the expression text. */
export class ExprError extends Error {
  override readonly name = 'ExprError';
}

export type Scope = ReadonlyMap<string, number>;

const functions: Readonly<Record<string, (args: number[]) => number>> = {
  min: (a) => Math.min(...a),
  max: (a) => Math.max(...a),
  floor: (a) => Math.floor(a[0] ?? NaN),
  ceil: (a) => Math.ceil(a[0] ?? NaN),
};

/**
 * Evaluates an arithmetic expression such as `i * 4MiB`, `16MiB / n` or `(i + 1) * 50us`:
 * numbers with an optional size or time unit, loop variables from `scope`, `+ - * / %`,
 * parentheses and min/max/floor/ceil. Tracks dimensions so a duration cannot become a size.
 */
export function evaluate(text: string, scope: Scope): Quantity {
  const parser = new Parser(text, scope);
  const result = parser.expression();
  parser.skipSpace();
  if (!parser.atEnd()) {
    throw new ExprError(`unexpected "${parser.rest()}" in "${text}"`);
  }
  if (!Number.isFinite(result.value)) {
    throw new ExprError(`"${text}" does not evaluate to a finite number`);
  }
  return result;
}

class Parser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly scope: Scope,
  ) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  rest(): string {
    return this.text.slice(this.pos);
  }

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) {
      this.pos++;
    }
  }

  private peek(): string {
    this.skipSpace();
    return this.text[this.pos] ?? '';
  }

  expression(): Quantity {
    let left = this.term();
    for (;;) {
      const op = this.peek();
      if (op !== '+' && op !== '-') {
        return left;
      }
      this.pos++;
      const right = this.term();
      const dim = sumDimension(left.dim, right.dim, op, this.text);
      left = { value: op === '+' ? left.value + right.value : left.value - right.value, dim };
    }
  }

  private term(): Quantity {
    let left = this.unary();
    for (;;) {
      const op = this.peek();
      if (op !== '*' && op !== '/' && op !== '%') {
        return left;
      }
      this.pos++;
      const right = this.unary();
      if (op === '*') {
        if (left.dim !== 'none' && right.dim !== 'none') {
          throw new ExprError(`cannot multiply a ${left.dim} by a ${right.dim} in "${this.text}"`);
        }
        left = { value: left.value * right.value, dim: left.dim === 'none' ? right.dim : left.dim };
        continue;
      }
      if (right.value === 0) {
        throw new ExprError(`division by zero in "${this.text}"`);
      }
      if (right.dim !== 'none' && right.dim !== left.dim) {
        throw new ExprError(`cannot divide a ${left.dim} by a ${right.dim} in "${this.text}"`);
      }
      const value = op === '/' ? left.value / right.value : left.value % right.value;
      // size / size is a plain ratio; size % size stays a size.
      const dim = op === '/' && right.dim !== 'none' ? 'none' : left.dim;
      left = { value, dim };
    }
  }

  private unary(): Quantity {
    if (this.peek() === '-') {
      this.pos++;
      const inner = this.unary();
      return { value: -inner.value, dim: inner.dim };
    }
    return this.primary();
  }

  private primary(): Quantity {
    const c = this.peek();
    if (c === '(') {
      this.pos++;
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (/[0-9.]/.test(c)) {
      return this.number();
    }
    if (/[A-Za-z_]/.test(c)) {
      return this.identifier();
    }
    throw new ExprError(
      c === '' ? `"${this.text}" ends too early` : `unexpected "${c}" in "${this.text}"`,
    );
  }

  private expect(c: string): void {
    if (this.peek() !== c) {
      throw new ExprError(`expected "${c}" in "${this.text}"`);
    }
    this.pos++;
  }

  private number(): Quantity {
    const match = /^[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?/.exec(this.rest());
    if (match === null) {
      throw new ExprError(`bad number at "${this.rest()}" in "${this.text}"`);
    }
    this.pos += match[0].length;
    const value = Number(match[0]);
    const unitMatch = /^[A-Za-zµ]+/.exec(this.rest());
    if (unitMatch === null) {
      return { value, dim: 'none' };
    }
    const unit = unitMatch[0];
    this.pos += unit.length;
    const bytes = sizeUnits[unit];
    if (bytes !== undefined) {
      return { value: value * bytes, dim: 'size' };
    }
    const ns = timeUnits[unit];
    if (ns !== undefined) {
      return { value: value * ns, dim: 'time' };
    }
    throw new ExprError(
      `unknown unit "${unit}" in "${this.text}" (sizes: ${Object.keys(sizeUnits).join(', ')}; ` +
        `durations: ${Object.keys(timeUnits).join(', ')})`,
    );
  }

  private identifier(): Quantity {
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.rest());
    const name = match?.[0] ?? '';
    this.pos += name.length;
    const fn = functions[name];
    if (fn !== undefined && this.peek() === '(') {
      this.pos++;
      const args: Quantity[] = [this.expression()];
      while (this.peek() === ',') {
        this.pos++;
        args.push(this.expression());
      }
      this.expect(')');
      const dim = args.reduce<Dimension>((d, a) => sumDimension(d, a.dim, name, this.text), 'none');
      return { value: fn(args.map((a) => a.value)), dim };
    }
    const value = this.scope.get(name);
    if (value === undefined) {
      const known = [...this.scope.keys()];
      throw new ExprError(
        `unknown variable "${name}" in "${this.text}"` +
          (known.length > 0 ? ` (in scope: ${known.join(', ')})` : ' (no loop variable in scope)'),
      );
    }
    return { value, dim: 'none' };
  }
}

function sumDimension(a: Dimension, b: Dimension, op: string, text: string): Dimension {
  if (a === 'none') {
    return b;
  }
  if (b === 'none' || a === b) {
    return a;
  }
  throw new ExprError(`cannot combine a ${a} and a ${b} with "${op}" in "${text}"`);
}
