import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skipValue } from '../chrome/json-skip.ts';
import { plainEnd, plainEndWords } from './json-bytes.ts';

const encoder = new TextEncoder();
const viewOf = (bytes: Uint8Array): DataView =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** `text` at `pad` bytes into a buffer of its own, so that words are read unaligned. */
function placed(bytes: Uint8Array, pad: number): Uint8Array {
  const buf = new Uint8Array(pad + bytes.length + 3).fill(0x41);
  buf.set(bytes, pad);
  return buf.subarray(pad, pad + bytes.length);
}

describe('JSON bytes four at a time', () => {
  it('finds the end of a plain string where the byte loop does, for any bytes', () => {
    // Mostly printable ASCII, with quotes, backslashes, control and non-ASCII bytes among them.
    const byte = fc.oneof(
      { weight: 12, arbitrary: fc.integer({ min: 0x20, max: 0x7f }) },
      { weight: 1, arbitrary: fc.constantFrom(0x22, 0x5c, 0x00, 0x1f, 0x80, 0xc3, 0xff) },
    );
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 60 }), fc.nat(7), fc.nat(60), (bytes, pad, cut) => {
        const buf = placed(Uint8Array.from(bytes), pad);
        const end = Math.min(cut, buf.length);
        for (let start = 0; start <= Math.min(4, end); start++) {
          expect(plainEndWords(buf, viewOf(buf), start, end)).toBe(plainEnd(buf, start, end));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('skips a JSON number to its last byte, whatever its length and alignment', () => {
    const number = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
      fc
        .tuple(fc.nat(), fc.nat(), fc.nat(99))
        .map(([a, b, e]) => `${a}.${String(b).padStart(9, '0')}e-${e}`),
    );
    fc.assert(
      fc.property(
        number,
        fc.constantFrom(',', '}', ']', ' ', '', ':', '?'),
        fc.nat(7),
        (n, after, pad) => {
          const buf = placed(encoder.encode(n + after), pad);
          expect(skipValue(buf, viewOf(buf), 0, buf.length, new Uint8Array(4))).toBe(n.length);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
