import { StringTable } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { dumpTrace } from './dump-trace.ts';
import { importTrace } from './import-trace.ts';
import { SourceStrings } from './source-strings.ts';
import { Warnings } from './warnings.ts';

describe('source strings', () => {
  it('refers to a string table index as -(index + 1) and resolves it once the table is known', () => {
    const strings = new StringTable();
    const source = new SourceStrings(strings, new Warnings());
    const ref = source.ref(4);
    expect(ref).toBe(-5);
    source.set(4, 'k');
    expect(strings.get(source.resolveName(ref))).toBe('k');
    expect(source.resolveName(ref)).toBe(source.resolveName(ref));
  });

  it('names an index that no string table can hold like a missing string', () => {
    const strings = new StringTable();
    const warnings = new Warnings();
    const source = new SourceStrings(strings, warnings);
    // -(2^31 - 1 + 1) is the last ref an Int32Array holds
    expect(source.ref(2 ** 31 - 2)).toBe(-(2 ** 31 - 1));
    for (const index of [-1, 0.5, 2 ** 31 - 1, 2 ** 53]) {
      const ref = source.ref(index);
      expect(ref).toBeGreaterThanOrEqual(0);
      expect(strings.get(ref)).toBe(`string #${index}`);
    }
    expect(warnings.list()).toEqual([
      'names refer to string indices missing from the string table (shown as "string #N") (4 times)',
    ]);
  });

  it('counts a missing string at each use, so the warning says how often names were lost', () => {
    const warnings = new Warnings();
    const source = new SourceStrings(new StringTable(), warnings);
    source.resolveName(source.ref(3));
    source.resolveName(source.ref(3));
    expect(warnings.list()[0]).toMatch(/\(2 times\)$/);
  });

  it('imports an nsys API call whose name index is beyond 2^31 with a placeholder name', async () => {
    const text = [
      '{"data":["","k"]}',
      '{"Type":48,"TraceProcessEvent":{"startNs":"1","endNs":"5","correlationId":1,"eventClass":0,"name":"2147483648","globalTid":"281491770704873"}}',
    ].join('\n');
    const { trace, warnings } = await importTrace(new TextEncoder().encode(text), {
      fileName: 'big-index.json',
    });
    expect(dumpTrace(trace)).toContain('string #2147483648');
    expect(warnings.join('\n')).toMatch(/string indices missing from the string table/);
  });
});
