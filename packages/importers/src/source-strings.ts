import type { StringTable } from '@streamscope/trace';
import type { Warnings } from './warnings.ts';

/** The largest source string index a name ref can hold: -(index + 1) must fit an Int32Array. */
const maxIndex = 2 ** 31 - 2;
const missingWarning =
  'names refer to string indices missing from the string table (shown as "string #N")';

/**
 * Strings that a source names by index (the nsys string table, which may come after the events
 * that use it), turned into trace string ids when the trace is built. A name ref is a trace
 * string id (≥ 0) or a source index `i` written as `-(i + 1)`.
 */
export class SourceStrings {
  private readonly values: (string | undefined)[] = [];
  /** Trace string id + 1 per source index already interned (0: not yet); built lazily. */
  private ids = new Int32Array(0);

  constructor(
    private readonly strings: StringTable,
    private readonly warnings: Warnings,
  ) {}

  /**
   * The name ref of source string `index`. What no string table can hold (a negative, fractional
   * or huge index: a ref must fit an Int32Array) is named like a missing string at once.
   */
  ref(index: number): number {
    if (Number.isInteger(index) && index >= 0 && index <= maxIndex) {
      return -(index + 1);
    }
    this.warnings.add(missingWarning);
    return this.strings.intern(`string #${index}`);
  }

  set(index: number, value: string): void {
    this.values[index] = value;
    if (index < this.ids.length) {
      this.ids[index] = 0;
    }
  }

  /** The trace string id of a name ref. Ops mostly reuse a few names, so each is interned once. */
  resolveName(ref: number): number {
    if (ref >= 0) {
      return ref;
    }
    const index = -ref - 1;
    if (this.ids.length < this.values.length) {
      const ids = new Int32Array(this.values.length);
      ids.set(this.ids);
      this.ids = ids;
    }
    const known = index < this.ids.length ? this.ids[index]! : 0;
    if (known > 0) {
      return known - 1;
    }
    const id = this.strings.intern(this.resolveText(ref));
    if (this.values[index] !== undefined) {
      this.ids[index] = id + 1; // missing strings are not kept: each use counts in the warning
    }
    return id;
  }

  /** The text of a name ref. */
  resolveText(ref: number): string {
    if (ref >= 0) {
      return this.strings.get(ref);
    }
    const index = -ref - 1;
    const value = this.values[index];
    if (value === undefined) {
      this.warnings.add(missingWarning);
      return `string #${index}`;
    }
    return value;
  }
}
