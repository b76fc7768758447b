import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameWords } from '../io/json-bytes.ts';
import { KeyTemplate, templateSlot } from './key-template.ts';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);
const viewOf = (bytes: Uint8Array): DataView =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

describe('key templates', () => {
  it('compares byte ranges of any length four bytes at a time as byte by byte', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 40 }),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.nat(5),
        fc.nat(5),
        (a, at, value, padA, padB) => {
          const b = Uint8Array.from(a);
          if (a.length > 0) {
            b[at % a.length] = value; // maybe one byte changed, anywhere
          }
          // at offsets of the buffers other than 0, so the words are unaligned
          const bufA = new Uint8Array(padA + a.length);
          bufA.set(a, padA);
          const bufB = new Uint8Array(padB + b.length);
          bufB.set(b, padB);
          const same = a.every((x, i) => x === b[i]);
          expect(sameWords(viewOf(bufA), padA, viewOf(bufB), padB, a.length)).toBe(same);
        },
      ),
    );
  });

  it('keeps each key with its quotes and colon and starts a template from another one’s keys', () => {
    const line = bytesOf('{"startNs":"1","gridX":4,"x":1}');
    const first = new KeyTemplate();
    expect(first.add(line, 1, 7, 1)).toBe(true); // "startNs":
    expect(first.add(line, 15, 5, 13)).toBe(true); // "gridX":
    expect(first.add(line, 25, 1, -1)).toBe(true); // "x":
    expect(new TextDecoder().decode(first.bytes.subarray(0, first.used))).toBe(
      '"startNs":"gridX":"x":',
    );
    const next = new KeyTemplate();
    next.copyPrefix(first, 2);
    expect(next.count).toBe(2);
    expect(new TextDecoder().decode(next.bytes.subarray(0, next.used))).toBe('"startNs":"gridX":');
    expect([...next.keys.subarray(0, 2 * templateSlot)]).toEqual([7, 1, 0, 5, 13, 10]);
  });

  it('refuses keys once its byte budget is spent', () => {
    const key = bytesOf(`"${'k'.repeat(1000)}":`);
    const template = new KeyTemplate();
    let added = 0;
    while (template.add(key, 0, 1000, -1)) {
      added++;
    }
    expect(added).toBe(4); // 4 × 1003 bytes fit in 4096, a fifth does not
    expect(template.count).toBe(4);
  });
});
