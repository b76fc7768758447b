import type { BoundsScope, Interval } from './interval.ts';
import { addI, divI, monotoneI, mulI, negI, point, remI, subI } from './interval.ts';
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

/**
 * An expression parsed once: its dimension is static (loop variables are plain numbers). `run`
 * evaluates it; `bounds` gives the range of values it takes while each loop variable ranges over
 * an interval (what counting a spec before expanding it needs).
 */
export interface Compiled {
  readonly dim: Dimension;
  readonly run: (scope: Scope) => number;
  readonly bounds: (scope: BoundsScope) => Interval;
}

type Fn = (scope: Scope) => number;
type BoundsFn = (scope: BoundsScope) => Interval;

const functions: Readonly<Record<string, (args: number[]) => number>> = {
  min: (a) => Math.min(...a),
  max: (a) => Math.max(...a),
  floor: (a) => Math.floor(a[0] ?? NaN),
  ceil: (a) => Math.ceil(a[0] ?? NaN),
};

// Specs repeat the same few expressions in loops: parse each text once. Bounded, so a hostile
// spec with millions of distinct texts cannot grow it without limit.
const cache = new Map<string, Compiled | ExprError>();
const cacheLimit = 10_000;

/**
 * Evaluates an arithmetic expression such as `i * 4MiB`, `16MiB / n` or `(i + 1) * 50us`:
 * numbers with an optional size or time unit, loop variables from `scope`, `+ - * / %`,
 * parentheses and min/max/floor/ceil. Tracks dimensions so a duration cannot become a size.
 */
export function evaluate(text: string, scope: Scope): Quantity {
  const compiled = compiledExpression(text);
  return { value: runExpression(compiled, text, scope), dim: compiled.dim };
}

/** The parsed form of `text` (cached), or throws ExprError for text that does not parse. */
export function compiledExpression(text: string): Compiled {
  let compiled = cache.get(text);
  if (compiled === undefined) {
    try {
      compiled = compile(text);
    } catch (error) {
      if (!(error instanceof ExprError)) {
        throw error;
      }
      compiled = error;
    }
    if (cache.size >= cacheLimit) {
      cache.clear();
    }
    cache.set(text, compiled);
  }
  if (compiled instanceof ExprError) {
    throw compiled;
  }
  return compiled;
}

/** Evaluates a parsed expression in `scope`: a finite number, or ExprError. */
export function runExpression(compiled: Compiled, text: string, scope: Scope): number {
  const value = compiled.run(scope);
  if (!Number.isFinite(value)) {
    throw new ExprError(`"${text}" does not evaluate to a finite number`);
  }
  return value;
}

function compile(text: string): Compiled {
  const parser = new Parser(text);
  const result = parser.expression();
  parser.skipSpace();
  if (!parser.atEnd()) {
    throw new ExprError(`unexpected "${parser.rest()}" in "${text}"`);
  }
  return result;
}

class Parser {
  private pos = 0;

  constructor(private readonly text: string) {}

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

  expression(): Compiled {
    let left = this.term();
    for (;;) {
      const op = this.peek();
      if (op !== '+' && op !== '-') {
        return left;
      }
      this.pos++;
      const right = this.term();
      const dim = sumDimension(left.dim, right.dim, op, this.text);
      const a = left.run;
      const b = right.run;
      const ab = left.bounds;
      const bb = right.bounds;
      left =
        op === '+'
          ? { dim, run: (s) => a(s) + b(s), bounds: (s) => addI(ab(s), bb(s)) }
          : { dim, run: (s) => a(s) - b(s), bounds: (s) => subI(ab(s), bb(s)) };
    }
  }

  private term(): Compiled {
    let left = this.unary();
    for (;;) {
      const op = this.peek();
      if (op !== '*' && op !== '/' && op !== '%') {
        return left;
      }
      this.pos++;
      const right = this.unary();
      const a = left.run;
      const b = right.run;
      const ab = left.bounds;
      const bb = right.bounds;
      if (op === '*') {
        if (left.dim !== 'none' && right.dim !== 'none') {
          throw new ExprError(`cannot multiply a ${left.dim} by a ${right.dim} in "${this.text}"`);
        }
        left = {
          dim: left.dim === 'none' ? right.dim : left.dim,
          run: (s) => a(s) * b(s),
          bounds: (s) => mulI(ab(s), bb(s)),
        };
        continue;
      }
      if (right.dim !== 'none' && right.dim !== left.dim) {
        throw new ExprError(`cannot divide a ${left.dim} by a ${right.dim} in "${this.text}"`);
      }
      const text = this.text;
      const divisor: Fn = (s) => {
        const v = b(s);
        if (v === 0) {
          throw new ExprError(`division by zero in "${text}"`);
        }
        return v;
      };
      const divisorBounds: BoundsFn = (s) => {
        const v = bb(s);
        if (v.lo === 0 && v.hi === 0) {
          throw new ExprError(`division by zero in "${text}"`);
        }
        return v;
      };
      // size / size is a plain ratio; size % size stays a size.
      const dim = op === '/' && right.dim !== 'none' ? 'none' : left.dim;
      left =
        op === '/'
          ? { dim, run: (s) => a(s) / divisor(s), bounds: (s) => divI(ab(s), divisorBounds(s)) }
          : { dim, run: (s) => a(s) % divisor(s), bounds: (s) => remI(ab(s), divisorBounds(s)) };
    }
  }

  private unary(): Compiled {
    if (this.peek() === '-') {
      this.pos++;
      const inner = this.unary();
      const a = inner.run;
      const ab = inner.bounds;
      return { dim: inner.dim, run: (s) => -a(s), bounds: (s) => negI(ab(s)) };
    }
    return this.primary();
  }

  private primary(): Compiled {
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

  private number(): Compiled {
    const match = /^[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?/.exec(this.rest());
    if (match === null) {
      throw new ExprError(`bad number at "${this.rest()}" in "${this.text}"`);
    }
    this.pos += match[0].length;
    const value = Number(match[0]);
    const unitMatch = /^[A-Za-zµ]+/.exec(this.rest());
    if (unitMatch === null) {
      return constant('none', value);
    }
    const unit = unitMatch[0];
    this.pos += unit.length;
    const bytes = sizeUnits[unit];
    if (bytes !== undefined) {
      return constant('size', value * bytes);
    }
    const ns = timeUnits[unit];
    if (ns !== undefined) {
      return constant('time', value * ns);
    }
    throw new ExprError(
      `unknown unit "${unit}" in "${this.text}" (sizes: ${Object.keys(sizeUnits).join(', ')}; ` +
        `durations: ${Object.keys(timeUnits).join(', ')})`,
    );
  }

  private identifier(): Compiled {
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.rest());
    const name = match?.[0] ?? '';
    this.pos += name.length;
    const fn = functions[name];
    if (fn !== undefined && this.peek() === '(') {
      this.pos++;
      const args: Compiled[] = [this.expression()];
      while (this.peek() === ',') {
        this.pos++;
        args.push(this.expression());
      }
      this.expect(')');
      const dim = args.reduce<Dimension>((d, a) => sumDimension(d, a.dim, name, this.text), 'none');
      const runs = args.map((a) => a.run);
      const bounds = args.map((a) => a.bounds);
      return {
        dim,
        run: (s) => fn(runs.map((r) => r(s))),
        bounds: (s) =>
          monotoneI(
            fn,
            bounds.map((b) => b(s)),
          ),
      };
    }
    const text = this.text;
    const unknown = (known: readonly string[]): ExprError =>
      new ExprError(
        `unknown variable "${name}" in "${text}"` +
          (known.length > 0 ? ` (in scope: ${known.join(', ')})` : ' (no loop variable in scope)'),
      );
    return {
      dim: 'none',
      run: (scope) => {
        const value = scope.get(name);
        if (value === undefined) {
          throw unknown([...scope.keys()]);
        }
        return value;
      },
      bounds: (scope) => {
        const range = scope.get(name);
        if (range === undefined) {
          throw unknown([...scope.keys()]);
        }
        return range;
      },
    };
  }
}

function constant(dim: Dimension, value: number): Compiled {
  const range = point(value);
  return { dim, run: () => value, bounds: () => range };
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
