import type { Scope } from './expr.ts';
import { ExprError, compiledExpression, runExpression } from './expr.ts';
import type { IssueList } from './issues.ts';
import type { Dimension } from './units.ts';

/** Evaluates spec values (numbers or expression text) and records what is wrong at `path`. */
export class Values {
  constructor(private readonly issues: IssueList) {}

  /** A whole number of bytes in [min, max]. */
  size(
    value: number | string,
    scope: Scope,
    path: string,
    min: number,
    max: number,
  ): number | undefined {
    const raw = this.quantity(value, scope, path, 'size');
    if (raw === undefined) {
      return undefined;
    }
    if (!Number.isInteger(raw)) {
      this.issues.add(
        path,
        `${describe(value)} is not a whole number of bytes (${raw})${at(scope)}`,
      );
      return undefined;
    }
    return this.bounded(raw, value, scope, path, min, max, 'bytes');
  }

  /** Whole ns (rounded) in [min, max]. */
  duration(
    value: number | string,
    scope: Scope,
    path: string,
    min: number,
    max: number,
  ): number | undefined {
    const raw = this.quantity(value, scope, path, 'time');
    if (raw === undefined) {
      return undefined;
    }
    return this.bounded(Math.round(raw), value, scope, path, min, max, 'ns');
  }

  /** A plain whole number in [min, max]. */
  count(
    value: number | string,
    scope: Scope,
    path: string,
    min: number,
    max: number,
  ): number | undefined {
    const raw = this.quantity(value, scope, path, 'none');
    if (raw === undefined) {
      return undefined;
    }
    if (!Number.isInteger(raw)) {
      this.issues.add(path, `${describe(value)} is not a whole number (${raw})${at(scope)}`);
      return undefined;
    }
    return this.bounded(raw, value, scope, path, min, max, '');
  }

  private bounded(
    v: number,
    value: number | string,
    scope: Scope,
    path: string,
    min: number,
    max: number,
    unit: string,
  ): number | undefined {
    if (!(v < min) && !(v > max)) {
      return v;
    }
    // Built only for a message: values in range are checked millions of times in a large plan.
    const shown = `${describe(value)}${typeof value === 'string' ? ` = ${v}` : ''}${unit === '' ? '' : ` ${unit}`}`;
    if (v < min) {
      this.issues.add(path, `${shown} is below the minimum ${min}${at(scope)}`);
    } else {
      this.issues.add(path, `${shown} is above the limit ${max}${at(scope)}`);
    }
    return undefined;
  }

  private quantity(
    value: number | string,
    scope: Scope,
    path: string,
    want: Dimension,
  ): number | undefined {
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        this.issues.add(path, `${value} is not a finite number`);
        return undefined;
      }
      return value;
    }
    try {
      // No object per evaluation: specs expand to millions of values.
      const compiled = compiledExpression(value);
      if (compiled.dim !== 'none' && compiled.dim !== want) {
        this.issues.add(
          path,
          `expected ${article(want)}, got ${article(compiled.dim)}: ${describe(value)}`,
        );
        return undefined;
      }
      return runExpression(compiled, value, scope);
    } catch (error) {
      if (error instanceof ExprError) {
        this.issues.add(path, error.message + at(scope));
        return undefined;
      }
      throw error;
    }
  }

  /** Replaces `{expr}` in a name with the expression's value (`"k{i}"` → `"k3"`). */
  interpolate(text: string, scope: Scope, path: string): string {
    if (!text.includes('{')) {
      return text;
    }
    return text.replace(/\{([^{}]*)\}/g, (_, inner: string) => {
      const v = this.count(inner, scope, path, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      return v === undefined ? '?' : String(v);
    });
  }
}

function describe(value: number | string): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}

function article(dim: Dimension): string {
  return dim === 'size' ? 'a size' : dim === 'time' ? 'a duration' : 'a plain number';
}

/** " (at i=3, j=0)" for messages from inside loops. */
export function at(scope: Scope): string {
  if (scope.size === 0) {
    return '';
  }
  return ` (at ${[...scope].map(([k, v]) => `${k}=${v}`).join(', ')})`;
}
